#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/lab-fidelity.sh: rtsoak, cyclictest and rtla timerlat in the lab, the
# instruction-timed guest (tests/lab/lab_run.sh), where a nanosecond is an
# instruction and identical runs give identical figures.
#
# What it measures
#   In one boot of the lab guest (Debian 6.1 PREEMPT_RT, one vCPU, qemu
#   -icount shift=0,sleep=off), on CPU 0 at 1 ms and SCHED_FIFO 95, $LOOPS
#   samples each, in this order:
#     rtsoak            run --probes timer --loops $LOOPS
#     cyclictest        -m -a0 -t1 -N -h 20000 (-N: the histogram is in ns)
#     rtla-thread/-irq  rtla timerlat hist -n, $LOOPS ms (6.1: no --no-aa)
#     cyclictest-M      cyclictest -M beside a process that sleeps 100 ms at a
#                       time: its main thread's 10 ms status loop replaced by
#                       rtsoak's housekeeping cadence
#     rtsoak+10ms       rtsoak beside a process that sleeps 10 ms at a time:
#                       cyclictest's main-thread cadence
#     rtsoak+timerlat   rtsoak at 997 us beside rtla timerlat at 1000 us
#                       (FIFO 94): what timerlat's tracer adds to a wake-up
#                       that is not its own (periods apart: they rarely meet)
#   All are ranked alike by tests/lab/latency_stats.py (nearest rank on each
#   tool's histogram; rtsoak's buckets are 16 ns wide here, so its figures are
#   +-8 ns; the others are exact).
#   Then, on this machine (not in the guest) and when gdb and cyclictest are
#   there, the user-space instructions each tool runs from the return of the
#   clock_nanosleep system call to the entry of the vDSO's clock_gettime
#   (gdb single-steps 5 wake-ups of each; the guest runs the same binaries
#   and the same glibc build, Debian 12's 2.36).
#
# How to read the output
#   One row per run: n, min, p50, p99, max in ns, and p50 and p99 minus
#   rtsoak's.  The rows in pairs tell what the differences are made of
#   (docs/BENCHMARKS.md, "Lab (instruction-timed guest)"): cyclictest-M
#   against rtsoak is the like-for-like comparison, rtsoak+10ms against
#   cyclictest the same from the other side.  The figures are facts of the
#   instruction-timed machine (1 ns per instruction, no caches, no memory
#   contention), not of real hardware.
#
# Usage
#   cd build && sudo bash ../bench/lab-fidelity.sh
#   Run from a build directory with the lab set up (tests/lab/lab_run.sh: the
#   guest under vm-cache/, qemu).  Environment: RTSOAK (binary; default
#   ./rtsoak), LOOPS (5000), OUT (directory for the raw files, kept; default a
#   temporary one, removed), WRAPPER_COUNT (1; 0 skips the gdb count).
#   Exit status: 0 whatever the figures; 2 missing tools or binary; 1 a run
#   failed.  About two minutes: ~45 s of guest time, the boot, the gdb count.
set -euo pipefail

LOOPS=${LOOPS:-5000}
WRAPPER_COUNT=${WRAPPER_COUNT:-1}
PY=/usr/bin/python3

ME=lab-fidelity.sh
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)

[[ $LOOPS =~ ^[0-9]+$ ]] && ((LOOPS >= 1000)) || missing "LOOPS must be a number >= 1000 (got '$LOOPS')"
[[ $(id -u) -eq 0 ]] || missing "needs root (tests/lab/lab_run.sh: 9p, qemu)"
[[ -x $PY ]] || missing "$PY not found; install it with: apt-get install python3"
find_rtsoak
RTSOAK=$(cd "$(dirname "$RTSOAK")" && pwd)/$(basename "$RTSOAK")
export RTSOAK builddir=${builddir:-$(pwd)}

if [[ -n ${OUT:-} ]]; then
	mkdir -p "$OUT" || die "cannot create $OUT"
else
	OUT=$(mktemp -d "${TMPDIR:-/tmp}/lab-fidelity.XXXXXX")
	trap 'rm -rf "$OUT"' EXIT
fi

# The job, in the guest: each tool in turn, the machine otherwise idle.
secs=$(((LOOPS + 999) / 1000))
cat >"$OUT/fidelity-job.sh" <<EOF
#!/bin/bash
cd /job
set -x
ct="cyclictest -m -p95 -a0 -t1 -i1000 -l$LOOPS -q -N -h 20000"
sleeper() { python3 -c "import time
while True: time.sleep(\$1)" & S=\$!; sleep 1; }
rtsoak run --probes timer --cpus 0 --priority 95 --interval 1ms --loops $LOOPS -q -o rt.json || exit 1
\$ct --histfile=ct.hist >/dev/null || exit 1
rtla timerlat hist -c 0 -P f:95 -p 1000 -E 20000 -n -d ${secs}s >rtla.out 2>&1 || exit 1
sleeper 0.1
\$ct -M --histfile=ct-M.hist >/dev/null || exit 1
kill \$S
sleeper 0.01
rtsoak run --probes timer --cpus 0 --priority 95 --interval 1ms --loops $LOOPS -q -o rt-10ms.json || exit 1
kill \$S
rtla timerlat hist -c 0 -P f:94 -p 1000 -E 20000 -n -d $((secs + 4))s >rtla-beside.out 2>&1 & R=\$!
sleep 2
rtsoak run --probes timer --cpus 0 --priority 95 --interval 997us --loops $LOOPS -q -o rt-timerlat.json || exit 1
wait \$R
EOF
echo "# lab-fidelity: $("$RTSOAK" --version 2>/dev/null | head -n1) ($RTSOAK), $LOOPS samples a run, CPU 0, 1 ms, FIFO 95; $(date -u +%F)"
bash "$top/tests/lab/lab_run.sh" --out "$OUT" --timeout 900 -- bash /job/fidelity-job.sh >"$OUT/lab.log" 2>&1 ||
	{ tail -20 "$OUT/lab.log" >&2; die "the lab run failed (log: $OUT/lab.log)"; }
grep -m1 '^guest_run:' "$OUT/lab.log" | sed 's/^/# /' || true

"$PY" "$top/tests/lab/latency_stats.py" rtsoak=rtsoak:"$OUT/rt.json" cyclictest=cyclictest:"$OUT/ct.hist" \
	rtla-thread=rtla-thread:"$OUT/rtla.out" rtla-irq=rtla-irq:"$OUT/rtla.out" \
	cyclictest-M=cyclictest:"$OUT/ct-M.hist" rtsoak+10ms=rtsoak:"$OUT/rt-10ms.json" \
	rtsoak+timerlat=rtsoak:"$OUT/rt-timerlat.json" >"$OUT/stats.json" ||
	die "reading the histograms failed"
"$PY" - "$OUT/stats.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
what = {
    "rtsoak": "rtsoak run --probes timer",
    "cyclictest": "cyclictest -N (main thread: 10 ms loop)",
    "rtla-thread": "rtla timerlat hist, thread",
    "rtla-irq": "rtla timerlat hist, IRQ",
    "cyclictest-M": "cyclictest -M beside a 100 ms sleeper",
    "rtsoak+10ms": "rtsoak beside a 10 ms sleeper",
    "rtsoak+timerlat": "rtsoak (997 us) beside rtla timerlat",
}
r = s["rtsoak"]
print("%-15s %5s %6s %7s %7s %6s %8s %8s  %s" % ("ns", "n", "min", "p50", "p99", "max", "d_p50", "d_p99", "what"))
for k, v in s.items():
    print("%-15s %5d %6d %7.0f %7.0f %6d %+8.0f %+8.0f  %s" % (k, v["n"], v["min"], v["p50"], v["p99"], v["max"],
          v["p50"] - r["p50"], v["p99"] - r["p99"], what.get(k, "")))
EOF

# The user-space part of the wake-up: instructions from the system call's
# return to the clock read, both tools, single-stepped by gdb.
[[ $WRAPPER_COUNT == 1 ]] || exit 0
if ! command -v gdb >/dev/null || ! command -v cyclictest >/dev/null; then
	echo "# wrapper count skipped: needs gdb and cyclictest here (apt-get install gdb rt-tests)"
	exit 0
fi
cat >"$OUT/count.py" <<'EOF'
# count(FUNC, OFF): stop at FUNC+OFF (the instruction after `syscall` in the
# clock_nanosleep path; CLOCK_MONOTONIC in rdi, result 0 in rax), then
# single-step to the vDSO's clock_gettime, 5 times.
import gdb
class AfterSyscall(gdb.Breakpoint):
    def stop(self):
        return int(gdb.parse_and_eval("$rdi")) == 1 and int(gdb.parse_and_eval("$rax")) == 0
def count(func, off):
    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    gdb.execute("set breakpoint pending on")
    first = gdb.Breakpoint(func)
    gdb.execute("run", to_string=True)
    first.delete()
    AfterSyscall("*%d" % (int(gdb.parse_and_eval("(long)&%s" % func)) + off))
    target = int(gdb.parse_and_eval("(long)&clock_gettime"))
    gdb.execute("continue", to_string=True)
    gdb.execute("set scheduler-locking step")
    res = []
    while len(res) < 5:
        n = 0
        while int(gdb.parse_and_eval("$pc")) != target and n < 10000:
            gdb.execute("stepi", to_string=True)
            n += 1
        res.append(n)
        gdb.execute("continue", to_string=True)
    print("COUNT %s" % " ".join(map(str, res)))
    gdb.execute("kill")
EOF
# Where the system call returns: glibc's syscall() (rtsoak's raw call) and
# __clock_nanosleep's multi-threaded (cancellable) path (cyclictest).
libc=$(ldd "$RTSOAK" | awk '/libc\.so/ {print $3}')
after() { # FUNC: the offset of the first instruction after its (last) syscall
	gdb -batch -ex "disassemble $1" "$libc" 2>/dev/null |
		awk '/\tsyscall/ {hit=1; next} hit && /<\+[0-9]+>/ {match($0, /<\+[0-9]+>/); o=substr($0, RSTART+2, RLENGTH-3); hit=0} END {print o}'
}
rt_off=$(after syscall) ct_off=$(after __clock_nanosleep)
[[ -n $rt_off && -n $ct_off ]] || { echo "# wrapper count skipped: cannot disassemble $libc"; exit 0; }
rt_n=$(timeout 300 gdb -batch -x "$OUT/count.py" -ex "py count('syscall', $rt_off)" --args "$RTSOAK" run \
	--probes timer --cpus 0 --priority 1 --interval 10ms --loops 20 -q -o "$OUT/gdb.json" 2>/dev/null |
	sed -n 's/^COUNT //p')
ct_n=$(timeout 300 gdb -batch -x "$OUT/count.py" -ex "py count('__clock_nanosleep', $ct_off)" --args \
	cyclictest -m -t1 -i10000 -l20 -q 2>/dev/null | sed -n 's/^COUNT //p')
echo "# user-space instructions from clock_nanosleep's return to the vDSO clock_gettime (5 wake-ups each, $(ldd --version | head -n1)):"
echo "#   rtsoak (raw syscall): ${rt_n:-failed}; cyclictest (glibc clock_nanosleep): ${ct_n:-failed}"
