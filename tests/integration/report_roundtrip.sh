#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `rtsoak report` reads a report back into the model: the text summary
# renders it, --json re-emits it byte for byte, and damaged files exit 2
# naming the file.
. "$(dirname "$0")/lib.sh"
require_root

plan 9
cd "$WORK" || exit 1
"$RTSOAK" run --loops 300 --interval 100us -q -o a.json
ok $? "run for the round trip"
"$RTSOAK" report a.json >text
ok $? "rtsoak report exits 0"
grep -Eq "^timer +all +[0-9]+" text
ok $? "rtsoak report prints the summary table"
"$RTSOAK" report a.json --json b.json && same_bytes a.json b.json
ok $? "read -> write reproduces the report byte for byte"
# The results are written one at a time in the place of a mark in the
# rest's text (json_write.c); a string of the user's exactly like that
# mark makes it write the report whole, the same report.
"$PYTHON3" - a.json marked.json <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["tool"]["argv"] += ["\u0001rtsoak-results\u0001", "\u0001rtsoak-aggregates\u0001"]
json.dump(r, open(sys.argv[2], "w"), indent=2)
EOF
"$RTSOAK" report marked.json --json m1.json && "$RTSOAK" report m1.json --json m2.json &&
	same_bytes m1.json m2.json &&
	[ "$(jget m1.json '(r["tool"]["argv"][-2:] == ["\x01rtsoak-results\x01", "\x01rtsoak-aggregates\x01"], len(r["results"]) > 0, r["results"] == json.load(open("a.json"))["results"], r["aggregates"] == json.load(open("a.json"))["aggregates"])')" = '[true, true, true, true]' ]
ok $? "an argument exactly like the results' mark: the report is written whole, results and argument intact"

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
