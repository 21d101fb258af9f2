#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/lab-bpf-floor.sh: what a flight recorder built on BPF would cost the
# timer probe's wake-up, measured in the lab before anyone builds one
# (issue 31: `--trace` costs 1.60x at p50 through tracefs; the goal is 1.10).
#
# What it measures
#   In the instruction-timed guest (tests/lab/lab_run.sh, docs/LAB.md), the
#   same untraced `rtsoak run --duration DURATION --interval 1ms --probes
#   timer --cpus 0` beside BPF programs (bench/bpf/floor.bpf.c) attached to
#   the tracepoints on the probe's wake-up path, one at a time and in sets,
#   in three modes: dispatch (each program returns at once: the floor of any
#   BPF design), record (every event into a BPF ring buffer, what tracefs
#   does today), gated (the probe's routine events leave timestamps in a
#   per-CPU slot and are written only when its wake-up is late; others'
#   events recorded whole) and lean (gated, with only the timer interrupt's
#   entry and the switch-in timed on the probe's path).  For each: the p50 and its difference and ratio
#   to the untraced runs' (the median of ROUNDS), and one `--trace` run for
#   comparison.  The p50 is the cost of a quiet wake-up from idle, which
#   every sample pays.
#
# Needs what lab_run.sh needs, plus clang, bpftool and libbpf-dev (a static
# libbpf, libelf and zlib: the loader runs in the guest without them), and
# the host kernel's BTF (/sys/kernel/btf/vmlinux: the programs' types; the
# guest's kernel relocates them by its own BTF when they load).
# Run from the build directory:
#   sudo bash ../bench/lab-bpf-floor.sh
# Settings: ROUNDS (default 2), DURATION (default 3s), OUT (the lab's job
# directory, default a new one under /tmp).  Lab figures are facts of this
# instruction-timed machine (1 ns = 1 instruction), not of real hardware.
ME=lab-bpf-floor
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
find_rtsoak
RTSOAK=$(cd "$(dirname "$RTSOAK")" && pwd)/$(basename "$RTSOAK")
ROUNDS=${ROUNDS:-2}
DURATION=${DURATION:-3s}
for t in clang bpftool; do
	command -v $t >/dev/null || missing "$t is not installed (apt-get install clang bpftool libbpf-dev)"
done
[ -r "$(gcc -print-file-name=libbpf.a)" ] || missing "no static libbpf (apt-get install libbpf-dev)"
[ -r /sys/kernel/btf/vmlinux ] || missing "this kernel has no BTF (/sys/kernel/btf/vmlinux)"
OUT=${OUT:-$(mktemp -d /tmp/lab-bpf-floor.XXXXXX)} || die "mktemp"
mkdir -p "$OUT" || die "cannot make $OUT"
rm -f "$OUT"/floor.txt

# The programs and their loader, built here, run there.
b=$OUT/build
mkdir -p "$b" || die "cannot make $b"
bpftool btf dump file /sys/kernel/btf/vmlinux format c >"$b/vmlinux.h" || die "bpftool btf dump"
clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -I"$b" -c "$here/bpf/floor.bpf.c" -o "$b/floor.bpf.o" ||
	die "clang -target bpf failed"
bpftool gen skeleton "$b/floor.bpf.o" name floor_bpf >"$b/floor.skel.h" || die "bpftool gen skeleton"
gcc -O2 -static -I"$b" "$here/bpf/floor_loader.c" -o "$OUT/floor_loader" -lbpf -lelf -lz 2>"$b/ld.err" ||
	{ cat "$b/ld.err" >&2; die "the loader did not link (libbpf-dev's static libbpf.a)"; }

# In the guest: each line of SETS beside the untraced run, untraced runs
# first and last in each round, one --trace run at the end.
cat >"$OUT/floor.sh" <<EOF
#!/bin/bash
p50() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print([x for x in r["results"] if x["phase"] == "all"][0]["p50_ns"])' "\$1"; }
run() {
	rtsoak run --duration $DURATION --interval 1ms --probes timer --cpus 0 -q \$2 -o /job/x.json 2>/job/x.err ||
		{ cat /job/x.err; exit 1; }
	echo "\$1 \$(p50 /job/x.json)" >>/job/floor.txt
}
with() {
	/job/floor_loader \$2 \$3 >/job/l.out 2>/job/l.err &
	for i in \$(seq 50); do grep -q attached /job/l.out && break; sleep 0.1; done
	grep -q attached /job/l.out || { cat /job/l.err; exit 1; }
	run "\$1"
	kill \$! && wait \$!
}
for r in \$(seq $ROUNDS); do
	run untraced
	for p in sw wk lte ltx ci; do with dispatch:\$p 0 \$p; done
	with dispatch:sw,wk 0 sw,wk
	with dispatch:sw,wk,lte,ci 0 sw,wk,lte,ci
	with dispatch:all5 0 sw,wk,lte,ltx,ci
	with record:all5 1 sw,wk,lte,ltx,ci
	with gated:sw,wk,lte,ci+hs 2 sw,wk,lte,ci,hs
	with gated:all5+hs 2 sw,wk,lte,ltx,ci,hs
	with lean:sw,wk,lte,ci+hs 3 sw,wk,lte,ci,hs
	run untraced
done
run --trace --trace
EOF

RTSOAK=$RTSOAK bash "$here/../tests/lab/lab_run.sh" --out "$OUT" -- bash /job/floor.sh \
	>"$OUT/lab.log" 2>&1 || { tail -20 "$OUT/lab.log" >&2; die "the lab run failed (log: $OUT/lab.log)"; }

echo "# lab-bpf-floor: $ROUNDS rounds of $DURATION, 1 ms timer probe on the lab's CPU 0;" \
	"rtsoak $("$RTSOAK" --version 2>/dev/null | head -1)"
echo "# programs: sw sched_switch, wk sched_waking, lte/ltx local_timer_entry/exit, ci cpu_idle, hs hrtimer_start (off the path)"
python3 - "$OUT/floor.txt" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    k, v = line.split()
    runs.setdefault(k, []).append(int(v))
base = statistics.median(runs.pop("untraced"))
print("%-24s %8s %9s %7s %s" % ("what", "p50_us", "+ns", "p50_x", "runs"))
print("%-24s %8.3f %9s %7s" % ("untraced (median)", base / 1e3, "", ""))
for k, v in runs.items():
    m = statistics.median(v)
    print("%-24s %8.3f %+9.0f %7.3f %s" % (k, m / 1e3, m - base, m / base, " ".join(str(x) for x in v)))
PY
