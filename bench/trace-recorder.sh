#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/trace-recorder.sh: what does one trace_recorder_poll() cost, and how
# many events per second does the flight recorder keep up with?
#
# What it measures
#   tests/trace_capture (the recorder on its own: rtsoak's instance on one
#   CPU, polled every $POLL_MS ms as the housekeeping thread would, the
#   default 200 ms window and 16384 events per CPU) while cyclictest wakes a
#   SCHED_FIFO thread on that CPU every $INTERVALS µs (each wake-up is about
#   eight events: local_timer entry/exit, hrtimer entry/exit, waking,
#   wakeup, two switches; plus whatever else runs there).  Per interval:
#   events consumed per second, events lost (the kernel's per-CPU overrun
#   count and the pages' missed-events headers), the CPU time of the polls
#   per second of run (CLOCK_THREAD_CPUTIME_ID around each poll), the
#   longest single poll, the recorder's own allocations and the process's
#   peak RSS (ru_maxrss), against the same tool doing nothing but
#   --top (the baseline RSS of the libraries).
#
# Needs root, tracefs, cyclictest (rt-tests) and a build with tracefs
# (configure --with-tracefs).  Run from the build directory:
#   sudo bash /path/to/bench/trace-recorder.sh
# Settings: CPU (default 1, else 0), SECONDS_EACH (default 5), POLL_MS
# (default 10), INTERVALS (default "1000 200 100 50").
ME=trace-recorder
. "$(dirname "$0")/lib.sh"

CAP=${TRACE_CAPTURE:-./tests/trace_capture}
[[ -x $CAP ]] || missing "no $CAP: make tests/trace_capture in a build configured with tracefs"
command -v cyclictest >/dev/null || missing "needs cyclictest (apt-get install rt-tests)"
[[ $(id -u) -eq 0 ]] || missing "needs root (tracefs instances)"
CPU=${CPU:-$( [[ $(nproc) -ge 2 ]] && echo 1 || echo 0)}
SECONDS_EACH=${SECONDS_EACH:-5}
POLL_MS=${POLL_MS:-10}
INTERVALS=${INTERVALS:-1000 200 100 50}

base=$( { /usr/bin/time -f %M "$CAP" --top >/dev/null; } 2>&1 | tail -1)
echo "# trace-recorder: CPU $CPU, ${SECONDS_EACH} s each, poll every $POLL_MS ms; kernel $(uname -r)"
echo "# baseline RSS of the tool without a recorder (--top): ${base:-?} KiB"
printf "%-12s %12s %8s %14s %12s %12s %12s\n" interval_us events_per_s lost poll_cpu_ms_per_s \
	max_poll_us recorder_kib maxrss_kib
for iv in $INTERVALS; do
	line=$("$CAP" --cpus "$CPU" --quiet --stats --poll-ms "$POLL_MS" --window-ms 200 \
		--max-events 16384 -- cyclictest -q -t1 -a"$CPU" -p50 -i"$iv" -D"$SECONDS_EACH" \
		-m 2>&1 >/dev/null | grep '^# stats')
	[[ -n $line ]] || die "no stats from $CAP at interval $iv"
	get() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<"$line"; }
	awk -v iv="$iv" -v s="$(get seconds)" -v ev="$(get events)" -v lost="$(get lost)" \
		-v pc="$(get poll_cpu_ms)" -v mp="$(get max_poll_us)" -v rb="$(get recorder_bytes)" \
		-v rss="$(get maxrss_kb)" 'BEGIN {
		printf "%-12s %12.0f %8d %14.2f %12.1f %12.0f %12d\n", iv, ev / s, lost, pc / s, mp,
			rb / 1024, rss }'
done
