#!/bin/bash
# SIGINT / SIGTERM / SIGHUP end a run early with a full, valid report
# marked "interrupted" within 1 s; a signal before the first sample gives
# valid JSON with null statistics.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema

plan 15
cd "$WORK" || exit 1

now_ms() { date +%s%3N; }

for sig in INT TERM HUP; do
	"$RTSOAK" run --duration 60s -q -o "$sig.json" &
	pid=$!
	sleep 1.5
	t=$(now_ms)
	kill -s "$sig" $pid
	wait $pid
	rc=$?
	el=$(($(now_ms) - t))
	ok $rc "SIG$sig: exit 0 (got $rc)"
	[ "$el" -lt 1000 ]
	ok $? "SIG$sig: report written and exited within 1 s (${el} ms)"
	validate "$sig.json"
	ok $? "SIG$sig: report is schema-valid"
	[ "$(jget "$sig.json" '(r["run"]["status"], all(x["count"] > 0 for x in r["results"]))')" = '["interrupted", true]' ]
	ok $? "SIG$sig: status interrupted, samples kept"
done

# A 10 s interval: the signal arrives before any probe wakes.
"$RTSOAK" run --interval 10s --duration 60s -q -o early.json &
pid=$!
sleep 0.5
t=$(now_ms)
kill -INT $pid
wait $pid
el=$(($(now_ms) - t))
[ "$el" -lt 1000 ]
ok $? "SIGINT before the first sample: exits within 1 s (${el} ms) despite a 10 s interval"
validate early.json
ok $? "SIGINT before the first sample: report is schema-valid"
[ "$(jget early.json '[(x["count"], x["max_ns"], x["p99_ns"], x["histogram"]) for x in r["results"]][0]')" = '[0, null, null, []]' ]
ok $? "SIGINT before the first sample: count 0 and null statistics"
done_testing
