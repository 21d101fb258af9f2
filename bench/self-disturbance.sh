#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/self-disturbance.sh: does rtsoak's own housekeeping disturb what it measures?
#
# What it measures
#   Progress line, checkpoints, counters and the OpenMetrics file all run on
#   rtsoak's housekeeping thread, and the ones with a period (progress on a
#   terminal, --checkpoint, --prom) are all due once a second when asked for
#   at that rate.  If that work reached the probes it would show as a higher
#   tail and as spikes recurring every second.  Two arms, same timer probe
#   on every online CPU (or $CPUS) every $INTERVAL for $DURATION s:
#
#     on:  rtsoak run --probes timer --interval 200us --duration 30s \
#              --checkpoint 1s --prom FILE -o FILE        (progress on: run
#          under `script` so that stderr is a terminal and the status line is
#          redrawn every second; what it draws is kept only to count the
#          redraws, proof that progress was on)
#     off: rtsoak run --probes timer --interval 200us --duration 30s \
#              --checkpoint 0 -q -o FILE                 (no progress, no
#          checkpoint, no OpenMetrics)
#
#   $ROUNDS rounds, the order alternating on/off, off/on (ABBA), so slow
#   drifts of the machine's noise hit both arms alike.  On a machine with no
#   CPU left unmeasured (this 2-CPU VM) the housekeeping thread shares the
#   measured CPUs: the harshest case for self-disturbance.
#
#   Tail figures per arm are pooled over its rounds: the per-CPU timer
#   histograms of every run of the arm (results, phase "all") are merged and
#   p99.9 is taken from the merged histogram exactly as rtsoak takes it
#   (nearest rank, the bucket's midpoint, clamped to the exact min and max),
#   so each arm's p99.9 rests on ROUNDS x the samples of one run instead of
#   being a median of noisier per-run figures; max is the largest of any run.
#   The per-run p99.9 (rtsoak's own aggregate over the CPUs, cpu "all") is
#   shown too, for the spread.  The script checks that its histogram
#   arithmetic reproduces rtsoak's aggregate p99.9 of each run.
#
#   Periodicity: rtsoak's report analyses the spikes of each probe and CPU
#   (--spike-threshold auto: 10 x the median of the first 5 s) and lists up
#   to three periodic patterns (analysis.periodicity[].patterns[].period_ns).
#   A pattern whose period is within $TOL_PCT % of 1 s is what the
#   housekeeping work would produce; "off" runs, which have no 1 s work, are
#   the control: the VM may have periodic noise of its own.
#
# How to read the output
#   One line per run: arm, p99.9 and max (us, all CPUs), missed deadlines,
#   spikes logged per CPU, the periods found per CPU (a "*" marks one within
#   TOL_PCT % of 1 s, "~k s" one near a multiple of 1 s) and, for "on", how
#   many times the progress line was drawn.  Then per arm the pooled p99.9,
#   the max, the per-run range, the ratios on/off, the verdicts and one line:
#
#     self-disturbance (N rounds): p99.9 on A / off B us (ratio A/B), max ... ; 1 s period in on runs k/N, off runs m/N
#
#   Goals: p99.9 ratio on/off <= 1.05 (pooled) and no 1 s period in the
#   "on" runs.  Read the per-run ranges first: when the p99.9 of one arm
#   varies between its runs by much more than 5 %, the pooled ratio is mostly
#   noise, and one bad run can decide it (pooling weighs every sample alike,
#   so a run with a noise burst dominates its arm's tail); the per-round
#   ratios on/off (each run against its neighbour in the same round) and
#   their median are printed beside it as the check that one run cannot
#   swing.  A 1 s period that shows in "off" runs as well belongs to the
#   machine.  max is a single sample per run and belongs to the host on a
#   shared VM.  A run is flagged (WARNING) when another program's real-time
#   thread was seen before or after it; with clean runs in both arms the
#   summary is repeated over the clean runs only.
#
# Usage
#   bench/self-disturbance.sh          (as root: SCHED_FIFO and mlockall)
#   Environment: RTSOAK (binary; default ./rtsoak, then $(dirname $0)/../rtsoak),
#   ROUNDS (4: runs per arm), DURATION (30: seconds per run), INTERVAL
#   (200us), CPUS (default: rtsoak's, every online CPU), TOL_PCT (2: how
#   close to 1 s a period must be).  Needs `script` (util-linux, Debian
#   bsdutils) and python3.
#   Exit status: 0 whatever the figures; 2 no binary, not root or a missing
#   tool; 1 a run failed.  Takes 2 x ROUNDS x DURATION plus ~1 s per run
#   (~4.1 min at the defaults); ROUNDS=10 DURATION=60 for a firmer answer.
set -euo pipefail

ROUNDS=${ROUNDS:-4}
DURATION=${DURATION:-30}
INTERVAL=${INTERVAL:-200us}
CPUS=${CPUS:-}
TOL_PCT=${TOL_PCT:-2}
PY=/usr/bin/python3

ME=self-disturbance.sh
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

for v in ROUNDS DURATION TOL_PCT; do
	[[ ${!v} =~ ^[0-9]+$ ]] || missing "$v must be a non-negative integer (got '${!v}')"
done
((ROUNDS > 0 && DURATION > 0)) || missing "ROUNDS and DURATION must be > 0"
[[ $INTERVAL =~ ^[0-9]+(ns|us|ms|s)?$ ]] || missing "INTERVAL must be like 200us (got '$INTERVAL')"
[[ -z $CPUS || $CPUS =~ ^[0-9,-]+$ ]] || missing "CPUS must be a CPU list like 0-1 (got '$CPUS')"

# --- tools -----------------------------------------------------------------
find_rtsoak
((EUID == 0)) || missing "run as root: rtsoak needs SCHED_FIFO and mlockall"
[[ -x $PY ]] || missing "$PY not found; install it with: apt-get install python3"
command -v script >/dev/null 2>&1 || missing "script not found (util-linux); install it with: apt-get install bsdutils"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/rtsoak-selfdist.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

COMMON=(run --probes timer --interval "$INTERVAL" --duration "${DURATION}s")
[[ -z $CPUS ]] || COMMON+=(--cpus "$CPUS")
ON_ARGS=("${COMMON[@]}" --checkpoint 1s --prom "$TMP/on.prom" --prom-keep)
OFF_ARGS=("${COMMON[@]}" --checkpoint 0 -q)

rt_version=$("$RTSOAK" --version 2>/dev/null | head -n1) || true
echo "# self-disturbance.sh: ${rt_version:-rtsoak} ($RTSOAK), kernel $(uname -r), $(nproc) online CPUs"
echo "# $ROUNDS rounds x ${DURATION}s per arm, order ABBA; progress via script(1) on a pseudo-terminal"
echo "# on:  rtsoak ${ON_ARGS[*]} -o FILE"
echo "# off: rtsoak ${OFF_ARGS[*]} -o FILE"
echo "# p99.9 and max in us over all measured CPUs; periods: a '*' marks one within ${TOL_PCT}% of 1 s"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine adds noise to both arms)"

# Real-time user threads of other programs (kernel threads excluded); as in
# fidelity.sh.
foreign_rt() {
	command -v ps >/dev/null 2>&1 || return 0
	ps -eLo cls=,rtprio=,pid=,comm=,args= 2>/dev/null |
		awk '($1 == "FF" || $1 == "RR") && $5 !~ /^\[/ { printf "%s (pid %s, %s %s)\n", $4, $3, $1, $2 }'
}

# run_arm ARM ROUND: one run; appends a JSON line to $TMP/runs.
run_arm() {
	local arm=$1 i=$2 out="$TMP/$1-$2.json" rc=0 draws=0 others cmd
	others="$(foreign_rt)"$'\n'
	if [[ $arm == on ]]; then
		rm -f "$TMP/on.prom"
		cmd=$(printf '%q ' "$RTSOAK" "${ON_ARGS[@]}" -o "$out")
		SHELL=/bin/bash script -qefc "$cmd" /dev/null </dev/null >"$TMP/tty-$i" 2>&1 || rc=$?
		draws=$(grep -o ' left, ' "$TMP/tty-$i" | wc -l) || true
		[[ -s $TMP/on.prom ]] || echo "#   WARNING round $i: no OpenMetrics file was written"
	else
		"$RTSOAK" "${OFF_ARGS[@]}" -o "$out" >"$TMP/out-$arm-$i" 2>&1 || rc=$?
	fi
	if ((rc != 0)); then
		cat "$TMP/tty-$i" "$TMP/out-$arm-$i" 2>/dev/null | tr -d '\r' | tail -n 20 >&2
		die "the '$arm' run of round $i failed (exit $rc)"
	fi
	others+="$(foreign_rt)"$'\n'
	others=$(grep . <<<"$others" | sort -u | paste -sd';' | cut -c1-200) || true
	$PY - "$arm" "$i" "$out" "$draws" "$others" "$TOL_PCT" >>"$TMP/runs" <<'EOF' || die "round $i: bad '$arm' report"
import json, sys

arm, rnd, path, draws, others, tol = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5], float(sys.argv[6])
d = json.load(open(path))
res = [x for x in d["results"] if x["probe"] == "timer" and x["phase"] == "all"]
agg = [x for x in d["aggregates"] if x["probe"] == "timer" and x["cpu"] == "all" and x["phase"] == "all"]
if not res or len(agg) != 1:
    sys.exit("no timer results in %s" % path)
agg = agg[0]
periods = {}
for p in d["analysis"]["periodicity"]:
    if p["probe"] == "timer":
        periods[p["cpu"]] = [q["period_ns"] for q in p["patterns"]]
spikes = {s["cpu"]: s["spike_log"]["total"] for s in d.get("series", []) if s["probe"] == "timer"}
print(json.dumps(dict(
    arm=arm, round=rnd, draws=draws, others=others,
    count=agg["count"], missed=agg["missed"], p999=agg["p99_9_ns"], max=agg["max_ns"], min=agg["min_ns"],
    hist=[[c[0], c[1], c[2]] for x in res for c in x["histogram"]],
    periods={str(k): v for k, v in sorted(periods.items())},
    spikes={str(k): v for k, v in sorted(spikes.items())},
    status=d["run"]["status"])))
EOF
	$PY - "$TMP/runs" "$TOL_PCT" <<'EOF'
import json, sys

x = json.loads(open(sys.argv[1]).read().splitlines()[-1])
tol = float(sys.argv[2]) / 100


def per(ns):
    s = ns / 1e9
    k = round(s)
    mark = ""
    if abs(s - 1) <= tol:
        mark = "*"
    elif k >= 2 and abs(s - k) <= tol * k:
        mark = "~%d s" % k
    return "%.3f s%s" % (s, mark)


periods = ", ".join("cpu%s %s" % (c, " ".join(per(p) for p in v) if v else "-") for c, v in x["periods"].items())
spikes = "/".join(str(v) for v in x["spikes"].values())
line = "round %2d %-3s: p99.9 %8.1f  max %8.1f  missed %5d  spikes %-9s periods: %s" % (
    x["round"], x["arm"], x["p999"] / 1e3, x["max"] / 1e3, x["missed"], spikes, periods or "-")
if x["arm"] == "on":
    line += "  (progress drawn %d times)" % x["draws"]
print(line)
if x["others"]:
    print("#   WARNING round %d %s: other real-time threads were running: %s" % (x["round"], x["arm"], x["others"]))
EOF
}

: >"$TMP/runs"
for ((i = 1; i <= ROUNDS; i++)); do
	if ((i % 2)); then
		run_arm on "$i"
		run_arm off "$i"
	else
		run_arm off "$i"
		run_arm on "$i"
	fi
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

$PY - "$TMP/runs" "$TOL_PCT" "$ROUNDS" <<'EOF'
import json, math, statistics, sys
from collections import defaultdict

runs = [json.loads(l) for l in open(sys.argv[1])]
tol = float(sys.argv[2]) / 100
rounds = int(sys.argv[3])


def p_nearest(hist, p, lo_exact, hi_exact):
    """rtsoak's histogram_percentile over [lower, upper, count] entries."""
    merged = defaultdict(int)
    for lo, hi, c in hist:
        merged[(lo, hi)] += c
    n = sum(merged.values())
    if n == 0:
        return 0
    rank = max(1, min(n, math.ceil(p / 100.0 * n)))
    if rank == n:
        return hi_exact
    if rank == 1:
        return lo_exact
    seen = 0
    for (lo, hi) in sorted(merged):
        seen += merged[(lo, hi)]
        if seen >= rank:
            return min(max(lo + (hi - lo - 1) // 2, lo_exact), hi_exact)
    return hi_exact


# Our arithmetic against rtsoak's, run by run.
bad = [r for r in runs if p_nearest(r["hist"], 99.9, r["min"], r["max"]) != r["p999"]]
for r in bad:
    print("# note: round %d %s: merged-histogram p99.9 %d ns differs from the report's %d ns"
          % (r["round"], r["arm"], p_nearest(r["hist"], 99.9, r["min"], r["max"]), r["p999"]))


def one_s(r):
    return sorted({c for c, v in r["periods"].items() if any(abs(p / 1e9 - 1) <= tol for p in v)})


def summary(sel, what):
    arms = {}
    for arm in ("on", "off"):
        rs = [r for r in sel if r["arm"] == arm]
        hist = [h for r in rs for h in r["hist"]]
        lo, hi = min(r["min"] for r in rs), max(r["max"] for r in rs)
        arms[arm] = dict(
            n=len(rs), p999=p_nearest(hist, 99.9, lo, hi), max=hi,
            runs=[r["p999"] for r in rs], maxes=[r["max"] for r in rs],
            samples=sum(r["count"] for r in rs), missed=sum(r["missed"] for r in rs),
            one_s=sum(1 for r in rs if one_s(r)), periodic=sum(1 for r in rs if any(r["periods"].values())))
    on, off = arms["on"], arms["off"]
    rp = on["p999"] / off["p999"] if off["p999"] else float("inf")
    rm = on["max"] / off["max"] if off["max"] else float("inf")
    print()
    print("pooled over %s (us):" % what)
    print("  %-4s %8s %12s %12s %10s   per-run p99.9 (min-max, median)" % ("arm", "runs", "samples", "p99.9", "max"))
    for arm in ("on", "off"):
        a = arms[arm]
        print("  %-4s %8d %12d %12.1f %10.1f   %.1f-%.1f, %.1f" % (
            arm, a["n"], a["samples"], a["p999"] / 1e3, a["max"] / 1e3, min(a["runs"]) / 1e3,
            max(a["runs"]) / 1e3, statistics.median(a["runs"]) / 1e3))
    print("  ratio on/off: p99.9 %.3f, max %.3f; median of per-run p99.9: %.3f" % (
        rp, rm, statistics.median(on["runs"]) / statistics.median(off["runs"])))
    pairs = [(r, s) for r in sel for s in sel
             if r["arm"] == "on" and s["arm"] == "off" and r["round"] == s["round"]]
    if pairs:
        higher = sum(1 for r, s in pairs if r["p999"] > s["p999"])
        ratios = sorted(r["p999"] / s["p999"] for r, s in pairs if s["p999"])
        print("  per-round p99.9 ratios on/off: %s, median %.3f; on > off in %d/%d rounds (about half when"
              " the arms do not differ)" % (" ".join("%.2f" % q for q in ratios),
                                           statistics.median(ratios) if ratios else float("nan"), higher, len(pairs)))
    spread = max(max(a["runs"]) / min(a["runs"]) for a in arms.values() if min(a["runs"]))
    if spread > 1.05:
        print("  note: one arm's per-run p99.9 varies by up to %.2fx between its runs; a 5 %% difference is"
              " below what these runs resolve" % spread)
    print("  1 s period (+-%g %%): on runs %d/%d, off runs (control) %d/%d; runs with any periodic pattern: on %d, off %d"
          % (tol * 100, on["one_s"], on["n"], off["one_s"], off["n"], on["periodic"], off["periodic"]))
    print("# goal p99.9 ratio on/off <= 1.05: %s" % ("met" if rp <= 1.05 else "MISSED"))
    print("# goal no 1 s period in the 'on' runs: %s" % ("met" if on["one_s"] == 0 else "MISSED"))
    print("self-disturbance (%s): p99.9 on %.1f / off %.1f us (ratio %.3f), max on %.1f / off %.1f us (ratio %.3f);"
          " 1 s period in on runs %d/%d, off runs %d/%d"
          % (what, on["p999"] / 1e3, off["p999"] / 1e3, rp, on["max"] / 1e3, off["max"] / 1e3, rm,
             on["one_s"], on["n"], off["one_s"], off["n"]))


periods = defaultdict(list)
for r in runs:
    for c, v in r["periods"].items():
        periods[r["arm"]] += ["%.3f" % (p / 1e9) for p in v]
print()
for arm in ("on", "off"):
    print("all periods found in '%s' runs (s): %s" % (arm, ", ".join(sorted(periods[arm], key=float)) or "none"))
summary(runs, "%d rounds" % rounds)
clean = [r for r in runs if not r["others"]]
if len(clean) < len(runs):
    print("# WARNING: %d of %d runs ran beside other real-time threads" % (len(runs) - len(clean), len(runs)))
    if any(r["arm"] == "on" for r in clean) and any(r["arm"] == "off" for r in clean):
        summary(clean, "%d clean runs" % len(clean))
EOF
