#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/instructions.sh: user-space instructions per sample, rtsoak vs cyclictest.
#
# What it measures
#   The CPU work each tool spends in user space for one latency sample, i.e.
#   how much the measuring tool itself perturbs the CPU it measures.  Both
#   tools run with the same settings (one thread, CPU $CPU, SCHED_FIFO
#   $PRIORITY, interval $INTERVAL_US us, memory locked; cyclictest with a
#   histogram, -h) under `valgrind --tool=callgrind --collect-systime=no`,
#   which counts executed user-space instructions (Ir) only, in every thread.
#   Each tool runs twice, with LOOPS_SMALL and LOOPS_BIG samples; the marginal
#   cost per sample is
#       (Ir(LOOPS_BIG) - Ir(LOOPS_SMALL)) / (LOOPS_BIG - LOOPS_SMALL)
#   so start-up and fixed costs cancel out.  Valgrind bypasses the vDSO, so
#   clock_gettime() costs the same syscall wrapper in both tools.
#
#   Instructions are counted in all threads, the main thread's only up to its
#   first call to pthread_join() (callgrind --dump-before), i.e. over the
#   measurement phase: the measuring thread's whole life plus the main
#   thread's start-up and housekeeping while the measurement runs.  What both
#   tools do after that (rtsoak serialises its JSON report, cyclictest prints
#   its histogram) is a one-off cost; rtsoak's depends on how many histogram
#   buckets happened to be hit, so it does not cancel between the two runs
#   and would swamp the per-sample figure with noise.  The whole-run figure
#   is printed too, for information.
#
#   rtsoak runs its timer probe only (--probes timer), the one that does what
#   cyclictest does; other probes would add threads and work of their own.
#
# How to read the output
#   One block per tool: samples taken, Ir of each run, and the per-sample cost
#   split by thread (thread 1 is the main thread).  Then, for each tool's
#   measuring thread, the functions that account for the per-sample cost
#   (callgrind_annotate self cost, big run minus small run, per sample;
#   cyclictest is stripped, so its own code shows as ???:0x...).  The last
#   line is
#       instructions/sample: rtsoak R, cyclictest C, ratio R/C (goal <= G)
#   The goal is rtsoak <= 0.60 x cyclictest.  Instruction counts are nearly
#   deterministic (they do not depend on how noisy the machine is); only the
#   rare data-dependent paths (top-K inserts, missed deadlines) vary a little.
#
# Usage
#   bench/instructions.sh            (as root: both tools need SCHED_FIFO)
#   Environment: RTSOAK (binary; default ./rtsoak, then $(dirname $0)/../rtsoak),
#   CYCLICTEST (default: cyclictest in PATH), CPU (0), PRIORITY (95),
#   INTERVAL_US (200), LOOPS_SMALL (2000), LOOPS_BIG (12000),
#   HIST_BUCKETS (10000), GOAL (0.60), KEEP_PROFILES (a directory to copy the
#   callgrind files into for your own callgrind_annotate).
#   Exit status: 0 whatever the ratio; 2 missing tools or binary; 1 a run failed.
#   Runs in well under a minute at the defaults.
set -euo pipefail

CPU=${CPU:-0}
PRIORITY=${PRIORITY:-95}
INTERVAL_US=${INTERVAL_US:-200}
LOOPS_SMALL=${LOOPS_SMALL:-2000}
LOOPS_BIG=${LOOPS_BIG:-12000}
HIST_BUCKETS=${HIST_BUCKETS:-10000}
GOAL=${GOAL:-0.60}
KEEP_PROFILES=${KEEP_PROFILES:-}
PY=/usr/bin/python3

ME=instructions.sh
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

for v in CPU PRIORITY INTERVAL_US LOOPS_SMALL LOOPS_BIG HIST_BUCKETS; do
	[[ ${!v} =~ ^[0-9]+$ ]] || missing "$v must be a non-negative integer (got '${!v}')"
done
((LOOPS_BIG > LOOPS_SMALL && LOOPS_SMALL > 0)) || missing "need 0 < LOOPS_SMALL < LOOPS_BIG"

# --- tools -----------------------------------------------------------------
find_rtsoak
CYCLICTEST=${CYCLICTEST:-cyclictest}
command -v "$CYCLICTEST" >/dev/null 2>&1 ||
	missing "cyclictest not found ($CYCLICTEST); install it with: apt-get install rt-tests valgrind"
for t in valgrind callgrind_annotate; do
	command -v "$t" >/dev/null 2>&1 ||
		missing "$t not found; install it with: apt-get install rt-tests valgrind"
done
[[ -x $PY ]] || missing "$PY not found; install it with: apt-get install python3"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/rtsoak-instr.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

VG=(valgrind --tool=callgrind --separate-threads=yes --collect-systime=no
	--dump-before='*pthread_join*')

rt_version=$("$RTSOAK" --version 2>/dev/null | head -n1) || true
ct_version=$("$CYCLICTEST" --help 2>&1 | head -n1) || true
echo "# instructions.sh: ${rt_version:-rtsoak} ($RTSOAK) vs ${ct_version:-cyclictest}"
echo "# $(valgrind --version), CPU $CPU, priority $PRIORITY, interval ${INTERVAL_US}us, loops $LOOPS_SMALL and $LOOPS_BIG"

# run_rtsoak LOOPS: profiles in $TMP/rtsoak-LOOPS/
run_rtsoak() {
	local n=$1 d="$TMP/rtsoak-$1"
	mkdir -p "$d"
	if ! "${VG[@]}" --callgrind-out-file="$d/cg.out" \
		"$RTSOAK" run --probes timer --cpus "$CPU" --priority "$PRIORITY" \
		--interval "${INTERVAL_US}us" --loops "$n" --output "$d/report.json" --quiet \
		>"$d/log" 2>&1; then
		cat "$d/log" >&2
		die "rtsoak under callgrind failed (loops $n)"
	fi
	$PY - "$d/report.json" "$n" "$d/samples" <<'EOF' || die "rtsoak report check failed (loops $n)"
import json, sys
d = json.load(open(sys.argv[1]))
r = [x for x in d["results"] if x["probe"] == "timer"]
if len(r) != 1 or r[0]["count"] != int(sys.argv[2]):
    sys.exit("rtsoak: expected one timer result with %s samples, got %s"
             % (sys.argv[2], [(x["probe"], x["count"]) for x in r]))
open(sys.argv[3], "w").write("%d %d\n" % (r[0]["count"], r[0]["missed"]))
EOF
}

# run_cyclictest LOOPS: profiles in $TMP/cyclictest-LOOPS/
run_cyclictest() {
	local n=$1 d="$TMP/cyclictest-$1"
	mkdir -p "$d"
	if ! "${VG[@]}" --callgrind-out-file="$d/cg.out" \
		"$CYCLICTEST" -m -p"$PRIORITY" -a"$CPU" -t1 -i"$INTERVAL_US" -l"$n" -q \
		-h "$HIST_BUCKETS" >"$d/stdout" 2>"$d/log"; then
		cat "$d/log" >&2
		die "cyclictest under callgrind failed (loops $n)"
	fi
	local total over
	total=$(sed -n 's/^# Total: *0*\([0-9][0-9]*\).*/\1/p' "$d/stdout" | head -n1)
	over=$(sed -n 's/^# Histogram Overflows: *0*\([0-9]*\).*/\1/p' "$d/stdout" | head -n1)
	[[ -n $total ]] || die "cyclictest printed no histogram total (loops $n)"
	((total + ${over:-0} == n)) || die "cyclictest took $((total + ${over:-0})) samples, expected $n"
	echo "$((total + ${over:-0})) 0" >"$d/samples"
}

for n in "$LOOPS_SMALL" "$LOOPS_BIG"; do
	run_rtsoak "$n"
	run_cyclictest "$n"
done

if [[ -n $KEEP_PROFILES ]]; then
	mkdir -p "$KEEP_PROFILES"
	cp -r "$TMP"/rtsoak-* "$TMP"/cyclictest-* "$KEEP_PROFILES"/
	echo "# callgrind profiles copied to $KEEP_PROFILES"
fi

# Sum the callgrind files, print the blocks, the breakdown and the final line.
$PY - "$TMP" "$LOOPS_SMALL" "$LOOPS_BIG" "$GOAL" <<'EOF'
import glob, os, re, subprocess, sys

tmp, small, big, goal = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
dn = big - small


def profile(d):
    """Per-thread Ir: (pre, whole, measuring-thread file) where pre counts up
    to the first --dump-before trigger (the main thread's first pthread_join)."""
    parts = {}  # thread -> {part: (Ir, path)}
    for f in glob.glob(os.path.join(d, "cg.out*")):
        hdr = {}
        with open(f, errors="replace") as fh:
            for line in fh:
                m = re.match(r"(part|thread|summary|totals): *(\d+)", line)
                if m:
                    hdr.setdefault(m.group(1), int(m.group(2)))
                elif line.startswith("fl=") or line.startswith("fn="):
                    break
        ir = hdr.get("summary", hdr.get("totals"))
        if ir is None:
            continue  # empty placeholder file
        parts.setdefault(hdr.get("thread", 1), {})[hdr.get("part", 1)] = (ir, f)
    if len(parts) < 2:
        sys.exit("%s: callgrind saw %d thread(s); the measuring thread is missing" % (d, len(parts)))
    main = parts.get(1, {})
    triggered = 1 in main and len(main) > 1
    pre, whole, files = {}, {}, {}
    for t, p in parts.items():
        whole[t] = sum(ir for ir, _ in p.values())
        # The main thread counts up to its first pthread_join() (part 1);
        # every other thread counts whole: a thread that had exited by then
        # shows up only in the final dump, and what a live one does after
        # that is its own exit.
        pre[t] = p[1][0] if (t == 1 and triggered) else whole[t]
        files[t] = [f for _, f in p.values()]
    return pre, whole, files, triggered


def short_name(s):
    """'dir/file.c:func [/lib/obj.so]' -> 'func (file.c, obj.so)'; entries
    without an object are code inlined from that file."""
    m = re.match(r"(.*?):(\S+)(?: \[(.*)\])?$", s)
    if not m:
        return s
    fl, fn, obj = m.groups()
    where = os.path.basename(fl) if fl != "???" else "?"
    where += ", " + os.path.basename(obj) if obj else ", inlined"
    return "%s (%s)" % (fn, where)


def self_costs(paths):
    d = {}
    for path in paths:
        out = subprocess.run(["callgrind_annotate", "--inclusive=no", "--auto=no",
                              "--threshold=100", path], capture_output=True, text=True).stdout
        for line in out.splitlines():
            m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+(\S.*)$", line)
            if m and "PROGRAM TOTALS" not in line:
                key = short_name(m.group(2))
                d[key] = d.get(key, 0) + int(m.group(1).replace(",", ""))
    return d


result = {}
for tool in ("rtsoak", "cyclictest"):
    a_pre, a_whole, a_files, a_trig = profile(os.path.join(tmp, "%s-%d" % (tool, small)))
    b_pre, b_whole, b_files, b_trig = profile(os.path.join(tmp, "%s-%d" % (tool, big)))
    if not (a_trig and b_trig):
        print("# WARNING: %s never called pthread_join under callgrind: using whole-run counts, "
              "which include end-of-run reporting" % tool)
    samples = {}
    for n in (small, big):
        s = open(os.path.join(tmp, "%s-%d" % (tool, n), "samples")).read().split()
        samples[n] = (int(s[0]), int(s[1]))
    threads = sorted(set(a_pre) | set(b_pre))
    per_thread = {t: (b_pre.get(t, 0) - a_pre.get(t, 0)) / dn for t in threads}
    total = sum(per_thread.values())
    whole = (sum(b_whole.values()) - sum(a_whole.values())) / dn
    if total < 10:
        sys.exit("%s: only %.1f Ir/sample in the measurement phase: the runs did not measure, "
                 "or the pthread_join cut is in the wrong place" % (tool, total))
    result[tool] = total
    print()
    print("%s:" % tool)
    for n, pre, wh in ((small, a_pre, a_whole), (big, b_pre, b_whole)):
        extra = ", %d missed deadlines" % samples[n][1] if tool == "rtsoak" else ""
        print("  loops %6d: %d samples%s; Ir measurement phase %d, whole run %d"
              % (n, samples[n][0], extra, sum(pre.values()), sum(wh.values())))
    for t in threads:
        print("  thread %d%s: %8.1f Ir/sample" % (t, " (main)" if t == 1 else "", per_thread[t]))
    print("  all threads: %6.1f Ir/sample (whole run incl. end-of-run output: %.1f)" % (total, whole))

    # Breakdown of the measuring thread: the one whose cost grows most.
    mt = max(threads, key=lambda t: per_thread[t])
    if mt in a_files and mt in b_files:
        sa, sb = self_costs(a_files[mt]), self_costs(b_files[mt])
        rows = sorted(((sb.get(k, 0) - sa.get(k, 0)) / dn, k) for k in set(sa) | set(sb))
        rows = [r for r in reversed(rows) if r[0] >= 0.5]
        print("  measuring thread %d, self cost per sample by function:" % mt)
        for v, k in rows[:12]:
            print("    %7.1f  %s" % (v, k))

r, c = result["rtsoak"], result["cyclictest"]
ratio = r / c if c > 0 else float("inf")
print()
print("# goal rtsoak <= %.2f x cyclictest: %s" % (goal, "met" if ratio <= goal else "MISSED"))
print("instructions/sample: rtsoak %.1f, cyclictest %.1f, ratio %.2f (goal <= %.2f)" % (r, c, ratio, goal))
EOF
