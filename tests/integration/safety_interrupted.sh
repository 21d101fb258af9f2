#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A killed run's checkpoint is data (issue 28, medium 5): a new run with the
# same -o used to replace the partial report and its .series log (with the
# soak unit enabled, the boot after a crash destroyed the soak within its
# first minute).  A report whose status is "running" and whose writer is gone
# (its output lock is free) is moved, with its series logs, into a new
# directory REPORT-STEM.interrupted-TIMESTAMP beside it, never into an
# existing one, and the run says where; a report that is still being written
# is refused by the lock as before, and a finished one is replaced as before.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema

plan 13
cd "$WORK" || exit 1
RUN="$RTSOAK run --probes timer --cpus 0 --interval 1ms -q"
# A checkpoint with its series log and at least one interval in it: the
# first checkpoint (at 1 s) can come before the probe closed the first 1 s
# interval, and then its series are empty (the series log holds closed
# intervals only), which is not what these cases are about.
running() {
	report_says r.json 'r["run"]["status"] == "running"' && [ -f r.json.series ] &&
		merged_says r.json 'r["series"][0]["intervals"]["n"] > 0'
}
# start a soak with checkpoints, let it write one with its series log, kill -9 it
killed_soak() {
	$RUN --duration 120s --checkpoint 1s -o r.json 2>soak.err &
	local pid=$!
	wait_until $((60 * RTSOAK_TIME_SCALE)) running
	kill -KILL $pid
	wait $pid 2>/dev/null
}
moved_to() { sed -n "s|.*'r.json' held a run that did not finish.* into '\(.*\)/'.*|\1|p" "$1"; }

# --- a run killed mid-way, then a new run with the same -o
killed_soak
running
ok $? "the killed run left a checkpoint (status running) and its series log"
sha256sum r.json r.json.series >killed.sums
stamp=$(date -u -d "@$(stat -c %Y r.json)" +%Y%m%dT%H%M%SZ)
$RUN --duration 1s -o r.json 2>err
rc=$?
dir=$(moved_to err)
[ $rc -eq 0 ] && [ "$dir" = "r.interrupted-$stamp" ] && [ "$(grep -c . err)" -eq 1 ]
ok $? "the next run goes on (exit 0) and says in one line where the checkpoint went ('$dir', rc=$rc, $(head -c 300 err))"
[ -d "$dir" ] && (cd "$dir" && sha256sum -c --quiet ../killed.sums)
ok $? "the checkpoint and its series log are in it, byte for byte, under their own names"
"$RTSOAK" report "$dir/r.json" --json merged.json 2>rerr &&
	report_says merged.json 'r["run"]["status"] == "running" and r["series"] and r["series"][0]["intervals"]["n"] > 0'
ok $? "the moved checkpoint still reads with its series ($(head -c 200 rerr))"
report_says r.json 'r["run"]["status"] == "complete"' && validate r.json && [ ! -e r.json.series ]
ok $? "the new run's report is complete where it was asked for"

# --- a second killed run: an earlier moved-aside directory is never reused,
# nor one that happens to have the name the move would take
killed_soak
stamp=$(date -u -d "@$(stat -c %Y r.json)" +%Y%m%dT%H%M%SZ)
mkdir -p "r.interrupted-$stamp"
echo keep >"r.interrupted-$stamp/sentinel"
(cd "$dir" && sha256sum r.json r.json.series) >first.sums
sha256sum r.json r.json.series >killed2.sums
$RUN --duration 1s -o r.json 2>err
rc=$?
dir2=$(moved_to err)
[ $rc -eq 0 ] && [ "$dir2" = "r.interrupted-$stamp-2" ] && (cd "$dir2" && sha256sum -c --quiet ../killed2.sums)
ok $? "a taken name gets -2 and the second checkpoint goes there ('$dir2', rc=$rc, $(head -c 300 err))"
[ "$(cat "r.interrupted-$stamp/sentinel")" = keep ] && [ "$(ls "r.interrupted-$stamp")" = sentinel ] &&
	(cd "$dir" && sha256sum -c --quiet ../first.sums)
ok $? "the directory that was there and the first moved-aside one are untouched"

# --- a finished report is replaced as before, nothing moved
n=$(ls -d r.interrupted-* | wc -l)
$RUN --duration 1s -o r.json 2>err
rc=$?
[ $rc -eq 0 ] && [ ! -s err ] && [ "$(ls -d r.interrupted-* | wc -l)" -eq "$n" ] &&
	report_says r.json 'r["run"]["status"] == "complete"'
ok $? "a complete report is replaced, nothing moved, nothing said (rc=$rc, $(head -c 200 err))"

# --- an interrupted (SIGTERM) run's report is whole: replaced as before
$RUN --duration 120s --checkpoint 1s -o r.json 2>/dev/null &
pid=$!
wait_until $((60 * RTSOAK_TIME_SCALE)) report_says r.json 'r["run"]["status"] == "running"'
kill -TERM $pid
wait $pid
report_says r.json 'r["run"]["status"] == "interrupted"'
ok $? "a run ended by SIGTERM writes status interrupted"
$RUN --duration 1s -o r.json 2>err
rc=$?
[ $rc -eq 0 ] && [ ! -s err ] && [ "$(ls -d r.interrupted-* | wc -l)" -eq "$n" ]
ok $? "its report is replaced, not moved (rc=$rc, $(head -c 200 err))"

# --- a writer that is alive: its lock refuses the second run, nothing moves
$RUN --duration 120s --checkpoint 1s -o r.json 2>/dev/null &
pid=$!
wait_until $((60 * RTSOAK_TIME_SCALE)) running
sha256sum r.json >live.sum
$RUN --duration 1s -o r.json 2>err
rc=$?
[ $rc -eq 3 ] && [ "$(ls -d r.interrupted-* | wc -l)" -eq "$n" ] && grep -q "r.json" err
ok $? "a live run's checkpoint: the second run exits 3 on the lock, nothing moved (rc=$rc, $(head -c 200 err))"
kill -INT $pid
wait $pid

# --- what is not an rtsoak checkpoint is never moved
printf '{"run":{"status":"running"}}\n' >r.json
$RUN --duration 1s -o r.json 2>err
rc=$?
[ $rc -eq 0 ] && [ "$(ls -d r.interrupted-* | wc -l)" -eq "$n" ]
ok $? "a file without the rtsoak schema is replaced as before (rc=$rc, $(head -c 200 err))"
printf '{"schema":"rtsoak-report/1","tool":{"argv":["\\"run\\":{\\"status\\":\\"running\\"}"]},"run":{"status":"complete"}}\n' >r.json
$RUN --duration 1s -o r.json 2>err
rc=$?
[ $rc -eq 0 ] && [ "$(ls -d r.interrupted-* | wc -l)" -eq "$n" ]
ok $? "\"status\":\"running\" inside a string does not count (rc=$rc, $(head -c 200 err))"

done_testing
