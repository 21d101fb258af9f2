#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --loops gives exactly that many samples; --cpus, --top, --dma-latency and
# --output - are honoured and echoed in the report's config.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema

plan 10
cd "$WORK" || exit 1
"$RTSOAK" run --loops 500 --interval 200us --cpus 0 --top 5 --dma-latency 0 -o loops.json -q >out 2>err
ok $? "--loops run exits 0 ($(head -c 200 err))"
[ ! -s out ]
ok $? "--quiet prints nothing on stdout"
validate loops.json
ok $? "report is schema-valid"
[ "$(jget loops.json '[(x["probe"], x["cpu"], x["count"]) for x in r["results"]]')" = '[["timer", 0, 500], ["net", 0, 500], ["net.stack", 0, 500], ["net.wakeup", 0, 500]]' ]
ok $? "exactly 500 samples per probe result on the one CPU asked for"
[ "$(jget loops.json 'len(r["results"][0]["top"])')" = 5 ]
ok $? "--top 5 keeps 5 samples"
[ "$(jget loops.json '[r["config"][k] for k in ("loops","interval_ns","cpus","dma_latency_us","duration_ns")]')" = '[500, 200000, "0", 0, null]' ]
ok $? "config echoes loops, interval, cpus, dma latency"

"$RTSOAK" run --loops 50 --interval 100us --cpus 0 -o - >stdout.json 2>summary
ok $? "--output - exits 0"
validate stdout.json
ok $? "--output - writes the report on stdout"
grep -q "^timer" summary && grep -q "^net " summary
ok $? "with --output -, the summary goes to stderr"
[ -z "$(ls rtsoak-*.json 2>/dev/null)" ]
ok $? "no default-named report when --output is given"
done_testing
