#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/lab-trace-cost.sh: what `run --trace` and `--trace-stacks` cost the
# timer probe, in the lab (issue 31).
#
# What it measures
#   In the instruction-timed guest (tests/lab/lab_run.sh, docs/LAB.md: one
#   vCPU, its clock the instruction count, so a figure is the same every
#   time), ROUNDS interleaved rounds of three runs each, without tracing,
#   with --trace and with --trace-stacks (off, trace, stacks, off, trace,
#   ...), every one `rtsoak run --duration DURATION --interval 1ms --probes
#   timer --cpus 0` on an otherwise idle CPU: their p50, p99.9 and max, and
#   for each round the ratio of the traced run to the untraced one.  The
#   table's last lines are the median ratio over the rounds, against the
#   goals of issue 31 (p50 and p99.9: --trace <= 1.10, --trace-stacks
#   <= 1.25; max is shown, not judged).  The --trace runs' events per
#   second and lost events say what the recorder kept.
#
# Needs what lab_run.sh needs (root, qemu, the guest in build/vm-cache).
# Run from the build directory:
#   sudo bash ../bench/lab-trace-cost.sh
# Settings: RTSOAK (the binary measured, default ./rtsoak: set it to another
# build's to measure that one, e.g. main's for the figures before a change),
# ROUNDS (default 3), DURATION (default 5s), OUT (the lab's job directory,
# default a new one under /tmp; its runs' reports are kept there).
ME=lab-trace-cost
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
find_rtsoak
RTSOAK=$(cd "$(dirname "$RTSOAK")" && pwd)/$(basename "$RTSOAK")
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5s}
OUT=${OUT:-$(mktemp -d /tmp/lab-trace-cost.XXXXXX)} || die "mktemp"
mkdir -p "$OUT" || die "cannot make $OUT"
rm -f "$OUT"/r*-*.json

# In the guest: the rounds, each run's report in /job (the host's $OUT).
cat >"$OUT/trace-cost.sh" <<EOF
#!/bin/bash
for r in \$(seq $ROUNDS); do
	for m in off trace stacks; do
		a=
		[ \$m = trace ] && a=--trace
		[ \$m = stacks ] && a=--trace-stacks
		rtsoak run --duration $DURATION --interval 1ms --probes timer --cpus 0 \$a -q \\
			-o /job/r\$r-\$m.json 2>/job/r\$r-\$m.err || { cat /job/r\$r-\$m.err; exit 1; }
	done
done
EOF
RTSOAK=$RTSOAK bash "$here/../tests/lab/lab_run.sh" --out "$OUT" -- bash /job/trace-cost.sh \
	>"$OUT/lab.log" 2>&1 || { tail -20 "$OUT/lab.log" >&2; die "the lab run failed (log: $OUT/lab.log)"; }

echo "# lab-trace-cost: $ROUNDS rounds of $DURATION, 1 ms timer probe on the lab's CPU 0;" \
	"rtsoak $("$RTSOAK" --version 2>/dev/null | head -1)"
python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def res(r, m):
    j = json.load(open("%s/r%d-%s.json" % (out, r, m)))
    x = [x for x in j["results"] if x["probe"] == "timer" and x["phase"] == "all"][0]
    a = j.get("attribution")
    ev = lost = None
    if a:
        dur = j["run"]["duration_ns"] / 1e9
        ev = sum(c["events"] for c in a["cpus"]) / dur
        lost = sum(c["lost"] for c in a["cpus"])
    return x["p50_ns"], x["p99_9_ns"], x["max_ns"], ev, lost
print("%-5s %-7s %8s %9s %8s %8s %9s %8s %10s %5s" % ("round", "mode", "p50_us", "p99.9_us", "max_us",
      "p50_x", "p99.9_x", "max_x", "events/s", "lost"))
ratios = {"trace": [], "stacks": []}
for r in range(1, rounds + 1):
    off = res(r, "off")
    for m in ("off", "trace", "stacks"):
        v = res(r, m)
        x = [v[i] / off[i] for i in range(3)]
        if m != "off":
            ratios[m].append(x)
        print("%-5d %-7s %8.2f %9.2f %8.2f %8.3f %9.3f %8.3f %10s %5s" % (
            r, m, v[0] / 1e3, v[1] / 1e3, v[2] / 1e3, x[0], x[1], x[2],
            "-" if v[3] is None else "%.0f" % v[3], "-" if v[4] is None else v[4]))
goal = {"trace": 1.10, "stacks": 1.25}
for m in ("trace", "stacks"):
    med = [statistics.median(x[i] for x in ratios[m]) for i in range(3)]
    ok = med[0] <= goal[m] and med[1] <= goal[m]
    print("median %-7s p50 x%.3f  p99.9 x%.3f  max x%.3f  (goal p50, p99.9 <= %.2f: %s)" % (
        m, med[0], med[1], med[2], goal[m], "met" if ok else "NOT met"))
PY
