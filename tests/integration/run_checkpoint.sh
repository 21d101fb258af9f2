#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Crash-safe checkpoints: with --checkpoint the report on disk is always a
# schema-valid report (status "running"): its series log holds the series
# up to the last checkpoint (a SIGKILL loses at most one interval of them),
# its summary the statistics as of the last summary the I/O budget allowed
# (issue 20); `rtsoak report` merges the two.  SIGUSR1 forces a checkpoint
# with its summary; the final report replaces the checkpoint and the log.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema

plan 18
cd "$WORK" || exit 1

# --- SIGKILL after ~3 checkpoints
t_start=$(date +%s%N)
$TAGGED "$RTSOAK" run --probes timer --checkpoint 1s --duration 600s --loads cpu:load=20 -q -o kill.json 2>/dev/null &
pid=$!
# killed once a checkpoint covers 2 s (about the third) and none is being
# written: by what the run wrote, not by the clock, so a slow machine (qemu
# TCG) waits longer.  (A SIGKILL in the middle of a write leaves its temp
# file, which the next run names: not what this case is about.)
# The summary's statistics are rewritten as the I/O budget allows (issue
# 20): SIGUSR1 asks for one now, until one covers 2 s too (under qemu TCG
# the first, at 1 s, can hold no load operation yet).
between() {
	if ! report_says kill.json 'r["run"]["duration_ns"] >= 2e9'; then
		[ -s kill.json ] && pkill -USR1 -f -- "-o kill.json"
		sleep 0.3
		return 1
	fi
	merged_says kill.json 'max(s["intervals"]["n"] * s["interval_ns"] for s in r["series"]) >= 2e9' &&
		! ls -A . | grep -q '^\.rtsoak-'
}
wait_until 300 between
kill -KILL $pid
t_kill=$(date +%s%N)
wait $pid 2>/dev/null
[ -s kill.json ]
ok $? "a report is on disk after SIGKILL"
validate kill.json && [ "$(jget kill.json '"series_log" in r')" = true ] && [ -f kill.json.series ]
ok $? "the checkpoint is schema-valid: a summary naming its series log, which is there"
"$RTSOAK" report kill.json --json merged.json && validate merged.json &&
	[ "$(jget merged.json '"series_log" in r')" = false ]
ok $? "rtsoak report merges them into one self-contained, schema-valid report"
# The series reach 2 s or more (the run was killed once they did) and no
# further than the run lasted; the statistics cover the run up to the last
# summary, no further than the series and the interval that was open then
# (a checkpoint logs the closed intervals: a summary forced at 2.1 s has
# statistics of 2.1 s and series of 2 s).
span=$(jget merged.json 'max(s["intervals"]["n"] * s["interval_ns"] for s in r["series"])')
[ "$(jget merged.json "(r['run']['status'], 2e9 <= $span <= $((t_kill - t_start)), 2e9 <= r['run']['duration_ns'] <= $span + r['series'][0]['interval_ns'])")" = '["running", true, true]' ]
ok $? "it says running, its series and its statistics cover 2 s or more, the series no more than the run lasted, the statistics no more than the series and their open interval ($span ns of series, $(jget merged.json 'r["run"]["duration_ns"]') ns of statistics, of $((t_kill - t_start)) ns)"
# every deadline of the timer's counted time is a sample or missed
[ "$(jget kill.json 'all(x["count"] > 0 for x in r["results"]) and all(abs(x["count"] + x["missed"] - r["run"]["duration_ns"] // r["config"]["interval_ns"]) <= r["run"]["duration_ns"] // r["config"]["interval_ns"] // 10 + 10 for x in r["results"] if x["probe"] == "timer") and r["loads"][0]["ops"] > 0')" = true ]
ok $? "it holds the samples (timer: count + missed = its deadlines) and load counters measured so far"
# the open phase counts up to the checkpoint (it said 0 s until the end)
[ "$(jget kill.json '[(len(p["occurrences"]), p["time_ns"] == r["run"]["duration_ns"], p["occurrences"][-1][1] == r["run"]["duration_ns"]) for p in r["phases"]]')" = '[[1, true, true]]' ]
ok $? "its phase counts the time so far: one occurrence up to the checkpoint ($(jget kill.json '[(p["time_ns"], p["occurrences"]) for p in r["phases"]]'))"
"$RTSOAK" report kill.json | head -1 | grep -q "running.*partial report"
ok $? "rtsoak report reads it and says it is partial"
# SIGKILL at any moment, a checkpoint every 20 ms (so that some kills land
# in an append): whatever is on disk reads, its series end at a whole
# record (the reader drops a torn one and says so).
bad=""
for i in 1 2 3 4 5 6; do
	rm -f k$i.json k$i.json.series
	"$RTSOAK" run --probes timer --checkpoint 20ms --series-interval 1ms --duration 60s -q -o k$i.json 2>/dev/null &
	pid=$!
	wait_until 60 eval "[ -s k$i.json.series ]"
	sleep "0.$((RANDOM % 9 + 1))"
	kill -KILL $pid
	wait $pid 2>/dev/null
	# what validate says goes into the line: CI shows a failing test's line
	"$RTSOAK" report k$i.json --json k$i-m.json 2>k$i.err && validate k$i-m.json >k$i.val ||
		bad="$bad $i($(head -c 200 k$i.err)$(head -c 300 k$i.val))"
done
[ -z "$bad" ]
ok $? "6 runs killed at random moments (checkpoints every 20 ms): each checkpoint reads and validates${bad:+:$bad}"
# A SIGKILL that lands in a checkpoint's write leaves that write's temp file
# (nothing can remove it; the next run names it): at most that one, named
# after the killed run.  On a fast machine there is usually none.
left=$(ls -A . | grep '^\.rtsoak-')
[ -z "$left" ] || { [ "$(echo "$left" | wc -l)" -eq 1 ] && echo "$left" | grep -q "^\.rtsoak-$pid-"; }
ok $? "no temp file beside it but the killed run's own in-flight one, if any (${left:-none})"
for _ in $(seq 30); do [ -z "$(tagged_pids)" ] && break; sleep 0.1; done
[ -z "$(tagged_pids)" ]
ok $? "the loads died with the killed run"

# --- SIGUSR1 with periodic checkpoints off
# --warmup 0: the signals are timed from the start of the process.
"$RTSOAK" run --checkpoint 0 --duration 60s --warmup 0 -q -o usr1.json &
pid=$!
sleep 1.5
[ ! -e usr1.json ]
ok $? "--checkpoint 0: nothing written before the end"
kill -USR1 $pid
wait_until 30 report_says usr1.json 'r["run"]["status"] == "running"'
[ "$(jget usr1.json 'r["run"]["status"]' 2>/dev/null)" = running ]
ok $? "SIGUSR1 writes a checkpoint now"
d1=$(jget usr1.json 'r["run"]["duration_ns"]' 2>/dev/null)
kill -INT $pid
wait $pid
ok $? "the run goes on after SIGUSR1 and ends on SIGINT"
[ "$(jget usr1.json "(r['run']['status'], r['run']['duration_ns'] > ${d1:-0})")" = '["interrupted", true]' ]
ok $? "the final report replaces the checkpoint (and covers more than its ${d1:-?} ns)"

# --- disk full while checkpointing: keep measuring, keep the last good
# checkpoint, retry, and say so in the final report
mkdir full
# 64 MiB, not less: an atomic write needs the old report and the new one
# side by side (under qemu TCG with 4 CPUs a 2 MiB disk was too small for
# two of them, and the final report rightly went to /tmp, exit 3).
if mount -t tmpfs -o size=64m tmpfs full; then
	# --warmup 0: the disk fills at a time from the start of the process.
	# 15 s: the disk must be free again before the end (under qemu TCG a 6 s
	# run ended while it was still full, and rightly wrote to /tmp, exit 3);
	# the check after the wait says whether the run outlived the filler.
	# 1 ms series intervals: each checkpoint appends a few KiB to the series
	# log, more than the last page of a full disk has left.
	"$RTSOAK" run --probes timer --checkpoint 1s --series-interval 1ms --duration $((15 * RTSOAK_TIME_SCALE))s --warmup 0 -q -o full/r.json 2>full.err &
	pid=$!
	# the first checkpoint, then the disk fills, then a checkpoint fails
	wait_until 60 report_says full/r.json 'r["run"]["status"] == "running"'
	dd if=/dev/zero of=full/filler bs=64k 2>/dev/null # fill what is left
	# the checkpoint on disk once the disk is full (one in flight may land)
	d0=$(jget full/r.json 'r["run"]["duration_ns"]')
	n0=$(grep -c "checkpoint of .* failed" full.err)
	# a checkpoint that failed after that
	failed_since() { [ "$(grep -c "checkpoint of .* failed" full.err)" -gt "$n0" ]; }
	wait_until 60 failed_since
	validate full/r.json && [ "$(jget full/r.json '(r["run"]["status"], r["run"]["duration_ns"])')" = "[\"running\", $d0]" ] &&
		"$RTSOAK" report full/r.json --json full-merged.json 2>full-merged.err &&
		! grep -q "incomplete record" full-merged.json
	ok $? "disk full: the last good checkpoint ($d0 ns) stays intact, its series log cut back to whole records ($(head -c 200 full.err) $(head -c 200 full-merged.err))"
	rm -f full/filler # space again: the next checkpoint and the end succeed
	kill -0 $pid 2>/dev/null && alive=yes || alive=no
	wait $pid
	rc=$?
	[ $alive = yes ] && [ $rc -eq 0 ]
	ok $? "disk full: the run keeps measuring and exits 0 (still running when the disk was freed: $alive; rc $rc, report $(stat -c %s full/r.json) bytes, $(tail -c 300 full.err))"
	[ "$(jget full/r.json '(r["run"]["status"], any("checkpoint(s) could not be written (last: No space left on device)" in w for w in r["run"]["warnings"]))')" = '["complete", true]' ]
	ok $? "disk full: the final report is complete and counts the failed checkpoints"
	[ -z "$(ls -A full | grep -v '^r.json$')" ]
	ok $? "disk full: no temp file and no series log left behind ($(ls -A full | tr '\n' ' '))"
	umount full
else
	for i in 1 2 3 4; do ok 0 "# SKIP cannot mount a tmpfs"; done
fi
done_testing
