#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SIGINT / SIGTERM / SIGHUP end a run early with a full, valid report
# marked "interrupted" within 1 s; a signal before the first sample gives
# valid JSON with null statistics.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema

plan 15
cd "$WORK" || exit 1

now_ms() { date +%s%3N; }
# "Promptly" is against a reference measured here, not a wall-clock bound:
# from the signal to the exit a run stops its threads, writes its report
# and exits, part of what a whole one-sample run does (ref_run_ms); twice
# that, for one measurement against a best of 3.  A run that waited for
# its next sample, checkpoint or its end would take 10 s to minutes.
ref=$(ref_run_ms)
# In the TCG guest (check-vm, RTSOAK_TIME_SCALE > 1) one of the three exits
# sometimes takes seconds: SIGHUP's 2.4, 4.4 and 6.4 s in three runs,
# SIGINT's 2.9 s in a fourth, the others 0.3-0.6 s (on the host all take
# 40-110 ms).  Not understood yet, so the guest keeps the 10 s bound this
# test had before it was a ratio; each result line reports the time.
limit=$((2 * ref))
[ "$RTSOAK_TIME_SCALE" -gt 1 ] && [ "$limit" -lt 10000 ] && limit=10000

for sig in INT TERM HUP; do
	# signalled once samples count: the first checkpoint holds some (the
	# timer alone: the subject is the signal, and under qemu TCG a net
	# sender sharing a measured CPU can starve for a minute)
	"$RTSOAK" run --probes timer --duration 600s --checkpoint 500ms -q -o "$sig.json" &
	pid=$!
	wait_until 300 report_says "$sig.json" 'all(x["count"] > 0 for x in r["results"])'
	t=$(now_ms)
	kill -s "$sig" $pid
	wait $pid
	rc=$?
	el=$(($(now_ms) - t))
	ok $rc "SIG$sig: exit 0 (got $rc)"
	[ "$ref" -gt 0 ] && [ "$el" -lt "$limit" ]
	ok $? "SIG$sig: report written and exited promptly (${el} ms, under $limit; a one-sample run $ref ms)"
	validate "$sig.json"
	ok $? "SIG$sig: report is schema-valid"
	[ "$(jget "$sig.json" '(r["run"]["status"], all(x["count"] > 0 for x in r["results"]))')" = '["interrupted", true]' ]
	ok $? "SIG$sig: status interrupted, samples kept"
done

# A 10 s interval: the signal arrives before any probe wakes.
# Its probe threads started (so the signals are taken: they are blocked
# before the first thread starts) but asleep for 10 s.
"$RTSOAK" run --interval 10s --duration 60s -q -o early.json &
pid=$!
wait_until $((10 * RTSOAK_TIME_SCALE)) eval 'grep -q "^rtsoak/tim/" /proc/$pid/task/*/comm 2>/dev/null'
t=$(now_ms)
kill -INT $pid
wait $pid
el=$(($(now_ms) - t))
[ "$ref" -gt 0 ] && [ "$el" -lt $((2 * ref)) ] && [ "$el" -lt 10000 ]
ok $? "SIGINT before the first sample: exits promptly (${el} ms; a one-sample run $ref ms) despite a 10 s interval"
validate early.json
ok $? "SIGINT before the first sample: report is schema-valid"
[ "$(jget early.json '[(x["count"], x["max_ns"], x["p99_ns"], x["histogram"]) for x in r["results"]][0]')" = '[0, null, null, []]' ]
ok $? "SIGINT before the first sample: count 0 and null statistics"
done_testing
