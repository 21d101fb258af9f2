#!/bin/bash
# `rtsoak report` reads a report back into the model: the text summary
# renders it, --json re-emits it byte for byte, and damaged files exit 2
# naming the file.
. "$(dirname "$0")/lib.sh"
require_root

plan 8
cd "$WORK" || exit 1
"$RTSOAK" run --loops 300 --interval 100us -q -o a.json
ok $? "run for the round trip"
"$RTSOAK" report a.json >text
ok $? "rtsoak report exits 0"
grep -Eq "^timer +all +[0-9]+" text
ok $? "rtsoak report prints the summary table"
"$RTSOAK" report a.json --json b.json && same_bytes a.json b.json
ok $? "read -> write reproduces the report byte for byte"

err=$("$RTSOAK" report missing.json 2>&1)
ok $(($? != 2)) "missing file: exit 2"
head -c 200 a.json >trunc.json
err=$("$RTSOAK" report trunc.json 2>&1)
rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q "trunc.json"
ok $? "truncated file: exit 2 naming the file ($err)"
echo '{"schema": "rtsoak-report/7"}' >future.json
err=$("$RTSOAK" report future.json 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q "unknown schema"
ok $? "unknown schema version: exit 2 ($err)"
echo '{"schema": "rtsoak-report/1", "tool": NaN}' >nan.json
"$RTSOAK" report nan.json >/dev/null 2>&1
ok $(($? != 2)) "NaN-bearing file: exit 2"
done_testing
