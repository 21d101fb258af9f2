#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Missed deadlines are counted, not skipped: freeze the whole process for
# 300 ms with SIGSTOP at a 1 ms interval, and every probe must count the
# deadlines it slept through, record the late wake-up as a sample, and
# still account for every deadline (count + missed = duration / interval).
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema

plan 5
cd "$WORK" || exit 1
# --warmup 0: the freeze is timed from the start of the process.
"$RTSOAK" run --probes timer --duration 3s --interval 1ms --warmup 0 -q -o missed.json &
pid=$!
sleep 1
kill -STOP $pid
sleep 0.3
kill -CONT $pid
wait $pid
ok $? "run survives SIGSTOP/SIGCONT and exits 0"
validate missed.json
ok $? "report is schema-valid"
# The freeze lasted >= 300 ms: >= 290 deadlines missed on every CPU.
bad=$(jget missed.json '[(x["cpu"], x["missed"]) for x in r["results"] if x["missed"] < 290]')
[ "$bad" = "[]" ]
ok $? "every CPU counts >= 290 missed deadlines (short: $bad)"
bad=$(jget missed.json '[(x["cpu"], x["max_ns"]) for x in r["results"] if x["max_ns"] < 290000000]')
[ "$bad" = "[]" ]
ok $? "the late wake-up itself is recorded as the max, >= 290 ms (short: $bad)"
bad=$(jget missed.json '[(x["cpu"], x["count"] + x["missed"]) for x in r["results"] if abs(x["count"] + x["missed"] - r["run"]["duration_ns"] // r["config"]["interval_ns"]) > 70]')
[ "$bad" = "[]" ]
ok $? "count + missed still accounts for every deadline (off: $bad)"
done_testing
