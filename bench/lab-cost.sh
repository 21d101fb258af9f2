#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/lab-cost.sh: what --trace, --trace-stacks and --checkpoint 1s cost the
# measurement, in the lab (tests/lab/lab_run.sh), where a nanosecond is an
# instruction and identical runs give identical figures.
#
# What it measures
#   In one boot of the lab guest (Debian 6.1 PREEMPT_RT, one vCPU, qemu
#   -icount shift=0,sleep=off): `rtsoak run --probes timer --cpus 0
#   --interval 1ms --duration $DURATION` (default warm-up 1 s), plain and with
#   each option, in interleaved pairs (plain then option, option then plain in
#   the next round), $ROUNDS rounds.  Per run, from the report: p50, p99.9
#   and max; and, read from /proc/PID/task/*/schedstat over a window of the
#   counted time ($WINDOW s), the CPU time of the probe thread and of the
#   whole rtsoak process per sample.  In the lab CPU time is instructions
#   (1 ns each), and a p50 difference is the instructions an option adds to
#   the wake-up path (from the timer's expiry to the probe's clock read).
#   The runner reads /proc twice in each run, plain or not.
#
# How to read the output
#   One row per option: the median over the rounds of option/plain for p50,
#   p99.9 and max (each pair's own plain run), the median p50 difference in
#   ns (= instructions on the wake-up path), and the CPU ns (= instructions)
#   per sample of the probe thread and of the process, plain -> option
#   (medians).  Then every run, for the spread.  The figures are facts of
#   the instruction-timed machine (1 ns per instruction, no caches, no
#   memory contention), not of real hardware: there an instruction costs
#   less than 1 ns, and a cache miss more.
#
# Usage
#   cd build && sudo bash ../bench/lab-cost.sh
#   Run from a build directory with the lab set up (tests/lab/lab_run.sh) and
#   rtsoak built with tracefs.  Environment: RTSOAK (binary; default
#   ./rtsoak), DURATION (seconds, 5), ROUNDS (3), WINDOW (seconds of counted
#   time read for CPU, 3; < DURATION), OUT (directory for the raw files,
#   kept; default a temporary one, removed).
#   Exit status: 0 whatever the figures; 2 missing tools or binary; 1 a run
#   failed.  About 2 minutes of guest time at the defaults (18 runs).
set -euo pipefail

DURATION=${DURATION:-5}
ROUNDS=${ROUNDS:-3}
WINDOW=${WINDOW:-3}
PY=/usr/bin/python3

ME=lab-cost.sh
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)

for v in DURATION ROUNDS WINDOW; do
	[[ ${!v} =~ ^[0-9]+$ ]] && ((${!v} > 0)) || missing "$v must be a positive integer (got '${!v}')"
done
((WINDOW < DURATION)) || missing "WINDOW ($WINDOW) must be shorter than DURATION ($DURATION)"
[[ $(id -u) -eq 0 ]] || missing "needs root (tests/lab/lab_run.sh: 9p, qemu)"
[[ -x $PY ]] || missing "$PY not found; install it with: apt-get install python3"
find_rtsoak
RTSOAK=$(cd "$(dirname "$RTSOAK")" && pwd)/$(basename "$RTSOAK")
export RTSOAK builddir=${builddir:-$(pwd)}
err=$("$RTSOAK" run --trace --duration 1s -q -o /dev/null 2>&1 >/dev/null) || true
case "$err" in *"built without tracefs"*) missing "$RTSOAK was built without tracefs" ;; esac

if [[ -n ${OUT:-} ]]; then
	mkdir -p "$OUT" || die "cannot create $OUT"
else
	OUT=$(mktemp -d "${TMPDIR:-/tmp}/lab-cost.XXXXXX")
	trap 'rm -rf "$OUT"' EXIT
fi

# The runner, in the guest: each run in the background, its threads' CPU
# time read twice inside the counted time (after the 1 s warm-up).
cat >"$OUT/cost-runner.py" <<'EOF'
import json, os, subprocess, sys, time
out, duration, rounds, window = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
options = {"trace": ["--trace"], "trace-stacks": ["--trace-stacks"], "checkpoint": ["--checkpoint", "1s"]}

def exec_ns(pid):
    per = {}
    for t in os.listdir("/proc/%d/task" % pid):
        try:
            comm = open("/proc/%d/task/%s/comm" % (pid, t)).read().strip()
            per[t] = (comm, int(open("/proc/%d/task/%s/schedstat" % (pid, t)).read().split()[0]))
        except OSError:
            pass
    return per

def run(name, extra):
    path = "%s/%s.json" % (out, name)
    p = subprocess.Popen(["rtsoak", "run", "--probes", "timer", "--cpus", "0", "--priority", "95",
                          "--interval", "1ms", "--duration", "%ds" % duration, "-q", "-o", path] + extra,
                         stderr=open("%s/%s.err" % (out, name), "w"))
    probe = None
    while probe is None and p.poll() is None:
        time.sleep(0.1)
        probe = next((t for t, (c, _) in exec_ns(p.pid).items() if c.startswith("rtsoak/tim")), None)
    time.sleep(1.3)  # past the warm-up: counted time
    a, ta = exec_ns(p.pid), time.monotonic_ns()
    time.sleep(window)
    b, tb = exec_ns(p.pid), time.monotonic_ns()
    if p.wait() != 0 or probe is None:
        sys.exit("%s: rtsoak failed (%s)" % (name, open("%s/%s.err" % (out, name)).read()[:300]))
    samples = (tb - ta) / 1e6
    proc = sum(b[t][1] - a[t][1] for t in b if t in a)
    return {"run": name, "report": path, "probe_ns_per_sample": (b[probe][1] - a[probe][1]) / samples,
            "process_ns_per_sample": proc / samples}

res = []
for r in range(1, rounds + 1):
    for opt, extra in options.items():
        pair = [("plain", []), (opt, extra)]
        if r % 2 == 0:
            pair.reverse()
        for name, args in pair:
            x = run("r%d-%s-%s" % (r, opt, name), args)
            x.update(round=r, option=opt, arm=name)
            res.append(x)
            print(json.dumps(x), flush=True)
json.dump(res, open(out + "/cost.json", "w"), indent=1)
EOF
cat >"$OUT/cost-job.sh" <<EOF
#!/bin/bash
cd /job
T=/sys/kernel/tracing
[ "\$(stat -f -c %T \$T 2>/dev/null)" = tracefs ] || mount -t tracefs nodev \$T || exit 1
python3 /job/cost-runner.py /job $DURATION $ROUNDS $WINDOW
EOF
echo "# lab-cost: $("$RTSOAK" --version 2>/dev/null | head -n1) ($RTSOAK), ${DURATION}s runs at 1 ms on CPU 0, $ROUNDS rounds of interleaved pairs; $(date -u +%F)"
bash "$top/tests/lab/lab_run.sh" --out "$OUT" --timeout 1800 -- bash /job/cost-job.sh >"$OUT/lab.log" 2>&1 ||
	{ tail -20 "$OUT/lab.log" >&2; die "the lab run failed (log: $OUT/lab.log)"; }
grep -m1 '^guest_run:' "$OUT/lab.log" | sed 's/^/# /' || true

"$PY" - "$OUT" <<'EOF'
import json, os, statistics, sys
out = sys.argv[1]
runs = json.load(open(os.path.join(out, "cost.json")))
def figures(x):
    r = json.load(open(os.path.join(out, os.path.basename(x["report"]))))
    t = [y for y in r["results"] if y["probe"] == "timer"][0]
    return {"p50": t["p50_ns"], "p999": t["p99_9_ns"], "max": t["max_ns"], "n": t["count"],
            "missed": t["missed"]}
for x in runs:
    x.update(figures(x))
med = statistics.median
print("%-13s %9s %9s %9s %9s %17s %19s" % ("option", "p50", "p99.9", "max", "d_p50_ns",
                                           "probe_ns/sample", "process_ns/sample"))
for opt in ("trace", "trace-stacks", "checkpoint"):
    pairs = []
    for rnd in sorted({x["round"] for x in runs}):
        a = [x for x in runs if x["round"] == rnd and x["option"] == opt]
        p = [x for x in a if x["arm"] == "plain"][0]
        o = [x for x in a if x["arm"] != "plain"][0]
        pairs.append((p, o))
    ratio = lambda k: med(o[k] / p[k] for p, o in pairs)
    print("%-13s %9.3f %9.3f %9.3f %+9.0f %8.0f -> %-6.0f %9.0f -> %-6.0f" % (
        opt, ratio("p50"), ratio("p999"), ratio("max"), med(o["p50"] - p["p50"] for p, o in pairs),
        med(p["probe_ns_per_sample"] for p, _ in pairs), med(o["probe_ns_per_sample"] for _, o in pairs),
        med(p["process_ns_per_sample"] for p, _ in pairs), med(o["process_ns_per_sample"] for _, o in pairs)))
print("# ratios: option / plain of the same pair, median of %d pairs" % len(pairs))
print("# every run (ns):")
print("#   %-28s %6s %6s %7s %7s %8s %10s" % ("run", "n", "p50", "p99.9", "max", "probe/s", "process/s"))
for x in runs:
    print("#   %-28s %6d %6d %7d %7d %8.0f %10.0f" % (x["run"], x["n"], x["p50"], x["p999"], x["max"],
                                                  x["probe_ns_per_sample"], x["process_ns_per_sample"]))
EOF
