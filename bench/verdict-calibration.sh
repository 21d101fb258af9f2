#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/verdict-calibration.sh: how often do compare and ab cry wolf, and
# how often do they see a real change?  (issue 15, calibration)
#
# What it measures
#   A/A false alarms: AA_PAIRS interleaved pairs of identical runs (same
#   settings, A B A B ...: the machine's drift hits both) through
#   `rtsoak compare --json`, and AB_RUNS `rtsoak ab` runs whose tweak is a
#   no-op (NOOP_FILE set to its own value: nothing changes, so every
#   better/worse/mixed verdict is a false alarm).  Power: POWER_PAIRS pairs
#   per run length in LENGTHS where B alone runs the spike load (SCHED_FIFO
#   bursts of BURST every PERIOD on every CPU, above the probes' priority:
#   a known added latency), the share detected as worse, and the smallest
#   length detecting it in at least 80 % of pairs.
#   Several runs a side: RUNS_SETS sets of RUNS_K interleaved runs a side
#   (A B A B ..., RUNS_LENGTH each) through `rtsoak compare A1.. vs B1..`
#   (method runs): A/A, and power with the spike load in every B run.
#   Each share comes with its Wilson 95 % interval.  Two units: per pair
#   (an alarm when any judged match of the pair says better, worse or mixed:
#   what a user sees) and per match (each judged probe x CPU result).
#
#   One run a side (issue 30): SINGLE_PAIRS interleaved pairs of single
#   runs of SINGLE_LENGTH at SINGLE_INTERVAL through `rtsoak compare A B`
#   (percentiles by per-interval quantiles in blocks, max by interval
#   maxima, and no verdict where one run a side cannot separate): A/A, and
#   SINGLE_POWER_PAIRS pairs with SINGLE_LOAD in B.  With LAB=1 the runs
#   are made in the lab (tests/lab/lab_run.sh: the instruction-timed guest,
#   one vCPU), LAB_PAIRS A/A pairs and LAB_POWER_PAIRS pairs with LAB_LOAD
#   in B, each run LAB_LENGTH with LAB_OPTS; the comparisons are made on the
#   host from the reports the guest wrote.
#
# Needs root (SCHED_FIFO probes, the no-op tweak).  Run from the build
# directory:  sudo bash /path/to/bench/verdict-calibration.sh
# Settings (environment): AA_PAIRS (10), AA_LENGTH (15s), AB_RUNS (4),
# AB_ROUNDS (5), AB_ROUND (5s), POWER_PAIRS (5), LENGTHS ("3s 6s 12s"),
# BURST (500us), PERIOD (200ms), PROBES (timer), CPUS (all), NOOP_FILE
# (/proc/sys/vm/stat_interval), RUNS_SETS (5), RUNS_POWER_SETS (3), RUNS_K
# (5: one of two judged statistics moving alone needs it), RUNS_LENGTH (5s), SECTIONS ("aa ab power runs": which to run), KEEP
# (a directory: keep the reports there).
# The defaults take about 22 minutes (runs: 9); AA_PAIRS=40 tightens the A/A interval
# (0 alarms in 10 pairs only says the rate is below 28 %).
# Issue 30's sections: SECTIONS=single (SINGLE_PAIRS 6, SINGLE_POWER_PAIRS 6,
# SINGLE_LENGTH 10s, SINGLE_INTERVAL 500us, SINGLE_LOAD
# spike:period=400ms:burst=3ms, SINGLE_OPTS extra run options; ~5 minutes)
# and SECTIONS=lab (LAB_PAIRS 10, LAB_POWER_PAIRS 10, LAB_LENGTH 3s,
# LAB_LOAD spike:period=37.309ms:burst=60us, LAB_OPTS "--interval 500us
# --series-interval 375ms"; ~3 minutes, the guest built: tests/vm).  The lab
# is deterministic, so the load's period decides which wake-ups its bursts
# hit: a 60 us burst covers a 500 us wake-up when their phases meet (12 % of
# bursts), and the phase moves by the period's remainder against 500 us at
# every burst.  A round remainder (37.1 ms: 100 us) aliases, hitting always
# or never; a small one (37.013 ms: 13 us) walks so slowly that the hits come
# in clusters every 500/13 bursts (1.42 s), two or three a 3 s run, which no
# block of a single run holds twice; 309 us (0.618 x 500) spreads them
# evenly, about one every 8 bursts (0.3 s), so a 375 ms block nearly always
# holds one (docs/BENCHMARKS.md, issue 30).
ME=verdict-calibration
. "$(dirname "$0")/lib.sh"

# Where a comparison keeps its verdicts, as a path into the compare JSON
# (`rtsoak compare --json`, and `.ab.comparison` of an ab report): a list
# of matches, each with its overall verdict.  The one place to change when
# the compare format moves.
VERDICT_PATH=".matches[].verdict"
# Which matches are judged: the probe's results, every CPU and "all".
JUDGED_PROBE=${JUDGED_PROBE:-timer}
# A verdict that is an alarm: anything that claims a change (mixed too).
ALARM_RE='^(better|worse|mixed)'
DETECT_RE='^(worse|mixed)'

find_rtsoak
[[ $(id -u) -eq 0 ]] || missing "needs root (SCHED_FIFO, --set)"
AA_PAIRS=${AA_PAIRS:-10}
AA_LENGTH=${AA_LENGTH:-15s}
AB_RUNS=${AB_RUNS:-4}
AB_ROUNDS=${AB_ROUNDS:-5}
AB_ROUND=${AB_ROUND:-5s}
POWER_PAIRS=${POWER_PAIRS:-5}
LENGTHS=${LENGTHS:-3s 6s 12s}
BURST=${BURST:-500us}
PERIOD=${PERIOD:-200ms}
PROBES=${PROBES:-timer}
NOOP_FILE=${NOOP_FILE:-/proc/sys/vm/stat_interval}
RUNS_SETS=${RUNS_SETS:-5}
RUNS_POWER_SETS=${RUNS_POWER_SETS:-3}
RUNS_K=${RUNS_K:-5}
RUNS_LENGTH=${RUNS_LENGTH:-5s}
SINGLE_PAIRS=${SINGLE_PAIRS:-6}
SINGLE_POWER_PAIRS=${SINGLE_POWER_PAIRS:-6}
SINGLE_LENGTH=${SINGLE_LENGTH:-10s}
SINGLE_INTERVAL=${SINGLE_INTERVAL:-500us}
SINGLE_LOAD=${SINGLE_LOAD:-spike:period=400ms:burst=3ms}
SINGLE_OPTS=${SINGLE_OPTS:-}
LAB_PAIRS=${LAB_PAIRS:-10}
LAB_POWER_PAIRS=${LAB_POWER_PAIRS:-10}
LAB_LENGTH=${LAB_LENGTH:-3s}
LAB_LOAD=${LAB_LOAD:-spike:period=37.309ms:burst=60us}
LAB_OPTS=${LAB_OPTS:---interval 500us --series-interval 375ms}
SECTIONS=${SECTIONS:-aa ab power runs}
section() { [[ " $SECTIONS " == *" $1 "* ]]; }
[[ -w $NOOP_FILE ]] || missing "NOOP_FILE=$NOOP_FILE is not a writable file"
work=$(mktemp -d /tmp/verdict-calibration.XXXXXX) || die "mktemp"
trap 'rm -rf "$work"' EXIT
common=(--probes "$PROBES" ${CPUS:+--cpus "$CPUS"} -q)

# run_one OUT ARGS...: one rtsoak run, or die with its error.
run_one() {
	local out=$1
	shift
	"$RTSOAK" run "${common[@]}" -o "$out" "$@" 2>"$work/err" ||
		die "run $* failed: $(head -c 300 "$work/err")"
}

# verdicts FILE PREFIX: the judged verdicts, one per line (PREFIX: where
# the comparison is in FILE, "" for compare --json, ".ab.comparison").
verdicts() {
	python3 - "$1" "$2$VERDICT_PATH" "$JUDGED_PROBE" <<'PY'
import json, sys
doc, path, probe = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
# ".a.b[].c": the list at .a.b, each element's c (one [] only)
head, _, field = path.partition("[]")
node = doc
for k in [k for k in head.split(".") if k]:
    node = node[k]
for m in node:
    if m.get("probe") != probe:
        continue
    v = m
    for k in [k for k in field.split(".") if k]:
        v = v[k]
    print("%s\t%s\t%s" % (m.get("cpu"), m.get("phase"), v))
PY
}

# compare_pair A B GROUP TAG: compare --json, the verdicts appended to
# GROUP.tsv, each line tagged with TAG (the pair).
compare_pair() {
	local rc
	"$RTSOAK" compare "$1" "$2" --json "$work/cmp.json" >/dev/null 2>"$work/err"
	rc=$?
	[[ $rc -le 1 && -s $work/cmp.json ]] || die "compare failed ($rc): $(head -c 300 "$work/err")"
	verdicts "$work/cmp.json" "" | sed "s/^/$4\t/" >>"$work/$3.tsv"
	if [[ -n ${KEEP:-} ]]; then
		cp "$1" "$KEEP/$4-a.json" && cp "$2" "$KEEP/$4-b.json" &&
			cp "$work/cmp.json" "$KEEP/$4-compare.json"
	fi
	return 0
}

[[ -n ${KEEP:-} ]] && mkdir -p "$KEEP"
echo "# verdict-calibration: kernel $(uname -r), $(nproc) CPUs, probes $PROBES, $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null)"
echo "# verdicts from $VERDICT_PATH of probe $JUDGED_PROBE; alarm: $ALARM_RE, detected: $DETECT_RE"
t_start=$(date +%s)

# (a) A/A compare: interleaved identical runs
section aa || AA_PAIRS=0
section ab || AB_RUNS=0
section power || POWER_PAIRS=0
section runs || RUNS_SETS=0 RUNS_POWER_SETS=0
section single || SINGLE_PAIRS=0 SINGLE_POWER_PAIRS=0
section lab || LAB_PAIRS=0 LAB_POWER_PAIRS=0
for i in $(seq "$AA_PAIRS"); do
	run_one "$work/a.json" --duration "$AA_LENGTH"
	run_one "$work/b.json" --duration "$AA_LENGTH"
	compare_pair "$work/a.json" "$work/b.json" aa_compare "aa$i"
done

# (a) A/A ab: a tweak that writes the file's own value
for i in $(seq "$AB_RUNS"); do
	own=$(cat "$NOOP_FILE") || die "cannot read $NOOP_FILE"
	"$RTSOAK" ab "${common[@]}" --set "$NOOP_FILE=$own" --rounds "$AB_ROUNDS" \
		--round-duration "$AB_ROUND" -o "$work/ab.json" >/dev/null 2>"$work/err"
	rc=$?
	[[ $rc -le 1 ]] || die "ab failed ($rc): $(head -c 300 "$work/err")"
	[[ $(cat "$NOOP_FILE") = "$own" ]] || die "$NOOP_FILE was not restored"
	verdicts "$work/ab.json" ".ab.comparison" | sed "s/^/ab$i\t/" >>"$work/aa_ab.tsv"
	[[ -n ${KEEP:-} ]] && cp "$work/ab.json" "$KEEP/ab$i.json"
done

# (b) power: the spike load in B only, per run length
for len in $LENGTHS; do
	for i in $(seq "$POWER_PAIRS"); do
		run_one "$work/a.json" --duration "$len"
		run_one "$work/b.json" --duration "$len" --loads "spike:burst=$BURST:period=$PERIOD"
		compare_pair "$work/a.json" "$work/b.json" "power_$len" "power$len-$i"
	done
done

# (c) several runs a side, interleaved: A/A, then the spike load in every B
# run_set GROUP TAG [B's extra options]: RUNS_K runs a side, then compare
run_set() {
	local group=$1 tag=$2 rc k
	shift 2
	local as=() bs=()
	for k in $(seq "$RUNS_K"); do
		run_one "$work/s-a$k.json" --duration "$RUNS_LENGTH"
		run_one "$work/s-b$k.json" --duration "$RUNS_LENGTH" "$@"
		as+=("$work/s-a$k.json")
		bs+=("$work/s-b$k.json")
	done
	"$RTSOAK" compare "${as[@]}" vs "${bs[@]}" --json "$work/cmp.json" >/dev/null 2>"$work/err"
	rc=$?
	[[ $rc -le 1 && -s $work/cmp.json ]] || die "compare (runs) failed ($rc): $(head -c 300 "$work/err")"
	verdicts "$work/cmp.json" "" | sed "s/^/$tag\t/" >>"$work/$group.tsv"
	[[ -n ${KEEP:-} ]] && cp "$work/cmp.json" "$KEEP/$tag-compare.json"
	return 0
}
for i in $(seq "$RUNS_SETS"); do
	run_set aa_runs "runs$i"
done
for i in $(seq "$RUNS_POWER_SETS"); do
	run_set power_runs "powerruns$i" --loads "spike:burst=$BURST:period=$PERIOD"
done

# (d) one run a side (issue 30), interleaved A B A B ...
# shellcheck disable=SC2086
for i in $(seq "$SINGLE_PAIRS"); do
	run_one "$work/a.json" --duration "$SINGLE_LENGTH" --interval "$SINGLE_INTERVAL" $SINGLE_OPTS
	run_one "$work/b.json" --duration "$SINGLE_LENGTH" --interval "$SINGLE_INTERVAL" $SINGLE_OPTS
	compare_pair "$work/a.json" "$work/b.json" single_aa "single$i"
done
# shellcheck disable=SC2086
for i in $(seq "$SINGLE_POWER_PAIRS"); do
	run_one "$work/a.json" --duration "$SINGLE_LENGTH" --interval "$SINGLE_INTERVAL" $SINGLE_OPTS
	run_one "$work/b.json" --duration "$SINGLE_LENGTH" --interval "$SINGLE_INTERVAL" $SINGLE_OPTS \
		--loads "$SINGLE_LOAD"
	compare_pair "$work/a.json" "$work/b.json" single_power "singlepower$i"
done

# (e) the same in the lab: every run in one boot of the guest, A B A B ...,
# then the comparisons here from the reports it wrote.
if [[ $LAB_PAIRS -gt 0 || $LAB_POWER_PAIRS -gt 0 ]]; then
	lab_run=$(dirname "$0")/../tests/lab/lab_run.sh
	mkdir -p "$work/lab"
	{
		echo '#!/bin/bash'
		echo 'cd /job || exit 1' # (not job.sh: lab_run.sh writes its own there)
		echo "for i in \$(seq $LAB_PAIRS); do"
		echo "  rtsoak run --probes timer -q --duration $LAB_LENGTH $LAB_OPTS -o aa\$i-a.json || exit 1"
		echo "  rtsoak run --probes timer -q --duration $LAB_LENGTH $LAB_OPTS -o aa\$i-b.json || exit 1"
		echo 'done'
		echo "for i in \$(seq $LAB_POWER_PAIRS); do"
		echo "  rtsoak run --probes timer -q --duration $LAB_LENGTH $LAB_OPTS -o pw\$i-a.json || exit 1"
		echo "  rtsoak run --probes timer -q --duration $LAB_LENGTH $LAB_OPTS --loads $LAB_LOAD -o pw\$i-b.json || exit 1"
		echo 'done'
	} >"$work/lab/calibration.sh"
	bash "$lab_run" --out "$work/lab" --timeout 3600 -- bash /job/calibration.sh >"$work/lab.log" 2>&1 ||
		die "the lab run failed: $(tail -c 300 "$work/lab.log")"
	for i in $(seq "$LAB_PAIRS"); do
		compare_pair "$work/lab/aa$i-a.json" "$work/lab/aa$i-b.json" lab_aa "labaa$i"
	done
	for i in $(seq "$LAB_POWER_PAIRS"); do
		compare_pair "$work/lab/pw$i-a.json" "$work/lab/pw$i-b.json" lab_power "labpw$i"
	done
fi

python3 - "$work" "$ALARM_RE" "$DETECT_RE" "$LENGTHS" "$AA_LENGTH" "$AB_ROUNDS" "$AB_ROUND" \
	"$BURST" "$PERIOD" "$RUNS_K" "$RUNS_LENGTH" \
	"$SINGLE_LENGTH $SINGLE_INTERVAL" "$SINGLE_LOAD" "$LAB_LENGTH $LAB_OPTS" "$LAB_LOAD" <<'PY'
import math, os, re, sys
w, alarm_re, detect_re, lengths, aa_len, ab_rounds, ab_round, burst, period, rk, rlen = sys.argv[1:12]
single, single_load, lab, lab_load = sys.argv[12:16]

def wilson(k, n, z=1.96):
    if n == 0:
        return (float("nan"), float("nan"))
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))

def load(name):
    rows = []
    try:
        for line in open(os.path.join(w, name + ".tsv")):
            tag, cpu, phase, verdict = line.rstrip("\n").split("\t")
            rows.append((tag, cpu, phase, verdict))
    except FileNotFoundError:
        pass
    return rows

def shares(rows, pattern):
    rx = re.compile(pattern)
    pairs = {}
    for tag, cpu, phase, v in rows:
        pairs.setdefault(tag, []).append(bool(rx.search(v)))
    kp, np_ = sum(any(v) for v in pairs.values()), len(pairs)
    km, nm = sum(sum(v) for v in pairs.values()), sum(len(v) for v in pairs.values())
    return kp, np_, km, nm

def line(what, setting, k, n, unit):
    lo, hi = wilson(k, n)
    share = k / n if n else float("nan")
    print("%-14s %-22s %-6s %5d/%-5d %6.1f %%  [%5.1f, %5.1f] %%" % (
        what, setting, unit, k, n, 100 * share, 100 * lo, 100 * hi))

print("%-14s %-22s %-6s %11s %8s  %s" % ("test", "setting", "unit", "alarms/n", "share", "Wilson 95 %"))
for name, what, setting in (("aa_compare", "A/A compare", "2 x " + aa_len),
                            ("aa_ab", "A/A ab no-op", "%s x 2 x %s" % (ab_rounds, ab_round)),
                            ("aa_runs", "A/A runs", "%s vs %s x %s" % (rk, rk, rlen))):
    kp, np_, km, nm = shares(load(name), alarm_re)
    line(what, setting, kp, np_, "pair")
    line(what, setting, km, nm, "match")
best = None
for ln in lengths.split():
    kp, np_, km, nm = shares(load("power_" + ln), detect_re)
    line("power", "%s, spike %s/%s" % (ln, burst, period), kp, np_, "pair")
    line("power", "%s, spike %s/%s" % (ln, burst, period), km, nm, "match")
    if best is None and np_ and kp / np_ >= 0.8:
        best = ln
print("smallest length detecting the spike load in >= 80 %% of pairs: %s" % (best or "none of " + lengths))
for name, what, setting, rx in (
        ("single_aa", "A/A single", single, alarm_re),
        ("single_power", "power single", single + ", B " + single_load, "^worse"),
        ("lab_aa", "A/A lab", lab, alarm_re),
        ("lab_power", "power lab", lab + ", B " + lab_load, "^worse")):
    rows = load(name)
    if not rows:
        continue
    kp, np_, km, nm = shares(rows, rx)
    line(what, setting, kp, np_, "pair")
    line(what, setting, km, nm, "match")
    counts = {}
    for tag, cpu, phase, v in rows:
        counts[v.split(":")[0]] = counts.get(v.split(":")[0], 0) + 1
    print("  %s verdicts: %s" % (what, ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
kp, np_, km, nm = shares(load("power_runs"), detect_re)
if np_:
    line("power runs", "%s vs %s x %s, spike" % (rk, rk, rlen), kp, np_, "set")
    line("power runs", "%s vs %s x %s, spike" % (rk, rk, rlen), km, nm, "match")
PY
echo "# took $(($(date +%s) - t_start)) s"
