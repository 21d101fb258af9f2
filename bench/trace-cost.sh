#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/trace-cost.sh: what does `run --trace` cost the measurement, and does
# the flight recorder keep up?
#
# What it measures
#   Interleaved pairs of runs with the same settings, one without --trace and
#   one with it (off, on, off, on, ...: the machine's drift hits both), idle
#   and under the slab load: the probes' p99.9 with --trace over without
#   (goal <= 1.10), and from the --trace runs' attribution section the
#   events per second per CPU, the events lost (goal 0), the housekeeping
#   CPU time per second of run spent polling and explaining, the recorder's
#   memory; and the process's peak RSS (ru_maxrss, goal <= 64 MiB).
#   Latency ratios on a shared VM are noisy: read them with the spread of
#   the rounds, which the script prints.
#
# Needs root, tracefs and a build with tracefs (configure --with-tracefs).
# Run from the build directory:
#   sudo bash /path/to/bench/trace-cost.sh
# Settings: DURATION (default 15s), ROUNDS (default 3), CPUS (default: all
# online), LOADS (default "none slab"), TRACE (default --trace;
# --trace-stacks to measure the stacks at every local-timer interrupt too:
# then stack_us is their mean cost inside each interrupt, from the report).
ME=trace-cost
. "$(dirname "$0")/lib.sh"
find_rtsoak
[[ $(id -u) -eq 0 ]] || missing "needs root (tracefs instances, SCHED_FIFO)"
err=$("$RTSOAK" run --trace --duration 1s -q -o /dev/null 2>&1 >/dev/null)
case "$err" in *"built without tracefs"*) missing "$RTSOAK was built without tracefs" ;; esac
DURATION=${DURATION:-15s}
ROUNDS=${ROUNDS:-3}
LOADS=${LOADS:-none slab}
work=$(mktemp -d /tmp/trace-cost.XXXXXX) || die "mktemp"
trap 'rm -rf "$work"' EXIT

echo "# trace-cost: $ROUNDS rounds of $DURATION per setting, ${CPUS:-all} CPUs; kernel $(uname -r); $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null)"
TRACE=${TRACE:---trace}
echo "# on = $TRACE"
printf "%-6s %-5s %12s %12s %8s %14s %12s %10s %10s %9s\n" load round p999_off_us p999_on_us ratio \
	events_per_s_cpu lost hk_ms_per_s rss_mib stack_us
for load in $LOADS; do
	largs=()
	[[ $load != none ]] && largs=(--loads "$load")
	for r in $(seq "$ROUNDS"); do
		for mode in off on; do
			targs=()
			[[ $mode = on ]] && targs=("$TRACE")
			/usr/bin/time -f %M -o "$work/rss.$mode" "$RTSOAK" run --probes timer \
				${CPUS:+--cpus "$CPUS"} --duration "$DURATION" "${largs[@]}" "${targs[@]}" \
				-q -o "$work/$mode.json" 2>"$work/err.$mode" || die "run $mode failed: $(head -c 300 "$work/err.$mode")"
		done
		python3 - "$work" "$load" "$r" <<'PY'
import json, sys
w, load, rnd = sys.argv[1:4]
def p999(f):
    r = json.load(open(f))
    return max(x["p99_9_ns"] for x in r["aggregates"] if x["probe"] == "timer" and x["phase"] == "all") / 1e3
off, on = p999(w + "/off.json"), p999(w + "/on.json")
r = json.load(open(w + "/on.json"))
a = r["attribution"]
dur = r["run"]["duration_ns"] / 1e9
ev = sum(c["events"] for c in a["cpus"]) / len(a["cpus"]) / dur
lost = sum(c["lost"] for c in a["cpus"])
hk = a["tracer"]["housekeeping_cpu_ns"] / 1e6 / dur
rss = int(open(w + "/rss.on").read().split()[-1]) / 1024
k = a["tracer"].get("stack_cost")
st = "%.1f" % (k["mean_ns"] / 1e3) if k else "-"
print("%-6s %-5s %12.1f %12.1f %8.2f %14.0f %12d %10.2f %10.1f %9s" % (load, rnd, off, on, on / off, ev, lost, hk, rss, st))
PY
	done
done
