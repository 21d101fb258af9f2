#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The probe threads really run SCHED_FIFO at the asked priority, pinned to
# the asked CPUs (read back from /proc while the run is live); --no-rt makes
# them SCHED_OTHER; the main thread is not SCHED_FIFO.
. "$(dirname "$0")/lib.sh"
require_root
command -v chrt >/dev/null || skip_all "chrt (util-linux) is missing"

cpus=$(online_cpus)
n=$(ncpus)
plan $((n * 3 + 3))
cd "$WORK" || exit 1

# Long enough to be read back on a busy machine; ended by SIGINT below.
"$RTSOAK" run --duration 60s --priority 42 --cpus "$cpus" -q -o sched.json &
pid=$!
# Wait until the probe threads exist (named rtsoak/tim/N): a state, not a
# fixed time (under qemu TCG a run takes seconds to start its threads).
probe_threads() { grep -l "^rtsoak/tim/${1:-}" /proc/$pid/task/*/comm 2>/dev/null; }
wait_until $((10 * RTSOAK_TIME_SCALE)) eval '[ "$(probe_threads | wc -l)" -ge "$n" ]'
for f in /proc/$pid/task/*/comm; do
	name=$(cat "$f")
	tid=$(basename "$(dirname "$f")")
	case "$name" in
	rtsoak/tim/*)
		cpu=${name##*/}
		pol=$(chrt -p "$tid")
		echo "$pol" | grep -q "SCHED_FIFO"
		ok $? "thread $name is SCHED_FIFO ($pol)"
		echo "$pol" | grep -q "priority: 42"
		ok $? "thread $name has priority 42"
		allowed=$(awk '/^Cpus_allowed_list/ {print $2}' /proc/$pid/task/$tid/status)
		[ "$allowed" = "$cpu" ]
		ok $? "thread $name is pinned to CPU $cpu (allowed: $allowed)"
		;;
	esac
done
chrt -p "$pid" | grep -q SCHED_OTHER
ok $? "main (housekeeping) thread is SCHED_OTHER"
kill -INT $pid
wait $pid
ok $? "run exits 0 after SIGINT"

# Long enough to be read back, ended by SIGINT once it has been.
"$RTSOAK" run --duration 60s --no-rt --cpus 0 -q -o nort.json &
pid=$!
wait_until $((10 * RTSOAK_TIME_SCALE)) eval '[ -n "$(probe_threads 0)" ]'
tid=$(probe_threads 0 | head -1 | xargs dirname | xargs basename)
pol=$(chrt -p "$tid" 2>&1)
echo "$pol" | grep -q SCHED_OTHER
ok $? "--no-rt probe thread is SCHED_OTHER (${pol:-no probe thread found})"
kill -INT $pid
wait $pid
done_testing
