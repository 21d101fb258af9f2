#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# lab_fidelity.sh: in the lab guest (make check-lab; one vCPU whose clock is
# its instruction count), rtsoak, cyclictest and rtla timerlat on CPU 0,
# 1 ms, FIFO 95, 5000 samples each, the machine otherwise idle.  All three
# are ranked alike (tests/lab/latency_stats.py: nearest rank on their
# histograms, in ns).  What it asserts, and why (docs/BENCHMARKS.md, "Lab
# (instruction-timed guest)", has the experiments):
#
#  * rtsoak's and cyclictest's p50 and p99 within 0.5 us.  They are not
#    equal, and the differences are explained: rtsoak's p50 is ~19 ns lower
#    (from the system call's return to the clock read rtsoak runs 15
#    instructions, glibc's cancellable clock_nanosleep 34), and its p99 is
#    ~0.2 us higher because cyclictest's main thread wakes every 10 ms on
#    the measured CPU (its status loop, even with -q): that pending timer
#    makes the kernel's restart of the stopped tick, every 4 ms after idle,
#    skip a clock-event reprogramming that rtsoak's wake-ups pay in the
#    stretches where the parked tick is the first timer due (its
#    housekeeping wakes every 100 ms).
#  * Hence, matched: cyclictest -M (its main thread waits on a condition
#    variable instead) beside a process that sleeps 100 ms at a time, as
#    rtsoak's housekeeping does, gives rtsoak's figures: p50 within 50 ns,
#    p99 within 0.1 us.
#  * rtla timerlat: its IRQ latency (the timer's handler) comes before any
#    thread wakes, so its median lies below rtsoak's minimum; its thread
#    latency lies above rtsoak's, by less than 1 us (0.56 us measured): a
#    kernel thread skips the return to user space, but timerlat's own
#    tracing (its IRQ sample written to the ring buffer, its osnoise hooks
#    on interrupts and context switches) lies on the path it measures
#    (rtsoak's own p50 rises by ~0.34 us while timerlat runs beside it).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/integration/lib.sh"
require_root
for t in cyclictest rtla; do
	command -v "$t" >/dev/null || skip_all "$t is not installed (rt-tests, rtla)"
done
[ "$(nproc)" -eq 1 ] || skip_all "the lab's comparison is on a one-vCPU guest (nproc: $(nproc))"

plan 8
loops=5000
ct=(cyclictest -m -p95 -a0 -t1 -i1000 -l"$loops" -q -N -h 10000)

"$RTSOAK" run --probes timer --cpus 0 --priority 95 --interval 1ms --loops "$loops" -q \
	-o "$WORK/rt.json" 2>"$WORK/rt.err"
rc=$?
[ $rc -eq 0 ] || sed 's/^/# /' "$WORK/rt.err"
"${ct[@]}" --histfile="$WORK/ct.hist" >"$WORK/ct.out" 2>&1 || { rc=1; sed 's/^/# /' "$WORK/ct.out"; }
rtla timerlat hist -c 0 -P f:95 -p 1000 -E 20000 -n -d 5s >"$WORK/rtla.out" 2>&1 ||
	{ rc=1; tail -5 "$WORK/rtla.out" | sed 's/^/# /'; }
# cyclictest with rtsoak's housekeeping cadence: no 10 ms status loop, one
# SCHED_OTHER process waking every 100 ms.
"$PYTHON3" -c 'import time
while True: time.sleep(0.1)' &
sleeper=$!
sleep 1
"${ct[@]}" -M --histfile="$WORK/ct-matched.hist" >"$WORK/ct-matched.out" 2>&1 ||
	{ rc=1; sed 's/^/# /' "$WORK/ct-matched.out"; }
kill "$sleeper"
wait "$sleeper" 2>/dev/null

# Under -icount sleep=off an idle guest's clock jumps to its next timer: a
# disk read (python's first imports) would last until then, up to seconds.
# A process waking every 10 ms keeps each such wait short.
"$PYTHON3" -c 'import time
while True: time.sleep(0.01)' &
ticker=$!
"$PYTHON3" "$top_srcdir/tests/lab/latency_stats.py" rtsoak=rtsoak:"$WORK/rt.json" \
	cyclictest=cyclictest:"$WORK/ct.hist" matched=cyclictest:"$WORK/ct-matched.hist" \
	thread=rtla-thread:"$WORK/rtla.out" irq=rtla-irq:"$WORK/rtla.out" >"$WORK/stats.json" 2>"$WORK/stats.err" ||
	{ rc=1; sed 's/^/# /' "$WORK/stats.err"; }
kill "$ticker"
wait "$ticker" 2>/dev/null
ok $rc "the three tools ran and their histograms read"
"$PYTHON3" - "$WORK/stats.json" <<'EOF' | sed 's/^/# /'
import json, sys
s = json.load(open(sys.argv[1]))
print("%-11s %5s %6s %7s %7s %6s" % ("ns", "n", "min", "p50", "p99", "max"))
for k, v in s.items():
    print("%-11s %5d %6d %7.0f %7.0f %6d" % (k, v["n"], v["min"], v["p50"], v["p99"], v["max"]))
EOF

s=$WORK/stats.json
# says EXPR NAME: one check of a python expression over the figures (r).
says() {
	report_says "$s" "$1"
	ok $? "$2"
}
says 'r["rtsoak"]["n"] == r["cyclictest"]["n"] == r["matched"]["n"] == 5000 and r["thread"]["n"] >= 4900' \
	"5000 samples from rtsoak and each cyclictest, ~5000 from rtla"
says 'abs(r["rtsoak"]["p50"] - r["cyclictest"]["p50"]) <= 500' "p50: rtsoak within 0.5 us of cyclictest"
says 'abs(r["rtsoak"]["p99"] - r["cyclictest"]["p99"]) <= 500' "p99: rtsoak within 0.5 us of cyclictest"
says 'abs(r["rtsoak"]["p50"] - r["matched"]["p50"]) <= 50' \
	"matched (cyclictest -M beside a 100 ms sleeper): p50 within 50 ns of rtsoak's"
says 'abs(r["rtsoak"]["p99"] - r["matched"]["p99"]) <= 100' \
	"matched: p99 within 0.1 us of rtsoak's (the 0.2 us was cyclictest's main thread)"
says 'r["irq"]["p50"] < r["rtsoak"]["min"]' "rtla's IRQ median lies below rtsoak's minimum"
says '0 < r["thread"]["p50"] - r["rtsoak"]["p50"] <= 1000' \
	"rtla's thread median lies above rtsoak's, by at most 1 us"
done_testing
