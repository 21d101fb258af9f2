#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/memory.sh: how much memory does a long rtsoak run take, and does it grow?
#
# What it measures
#   Peak resident memory (RSS) of `rtsoak run --interval $INTERVAL` on every
#   online CPU (rtsoak's default CPUs and probes: timer,net), once per
#   duration in $DURATIONS (default a 60 s and a 600 s run, one after the
#   other), and how much the peak grows with the run's length.
#
#   Peak RSS is the child's ru_maxrss as reported by `/usr/bin/time -f %M`
#   (Debian package time; without it, by os.wait4 in python3): the kernel
#   keeps the high-water mark of the process's RSS and hands it over when
#   the process is reaped, so it is exact and includes the very end of the
#   run, when rtsoak builds, analyses and writes its report.  The script
#   also samples /proc/PID/status (VmHWM, VmRSS) every $SAMPLE s while the
#   run lasts and keeps a breakdown of /proc/PID/smaps at mid-run.
#
#   rtsoak mlockall()s (MCL_CURRENT | MCL_FUTURE): every page it maps is made
#   resident at once, so RSS counts everything rtsoak has allocated, touched
#   or not (thread stacks, malloc arenas, the spike log buffer), not only the
#   pages it used.  VmLck (printed in the breakdown) also counts locked but
#   inaccessible reservations such as glibc's per-thread arena reserves,
#   which are never resident.
#
#   What should grow with the run's length: the time series (the script
#   counts 24 bytes an interval, the decoded size; since issue 20 they are
#   kept encoded at ~3 bytes, so real growth is well below the figure), one 24-byte
#   interval per series per --series-interval (1 s by default; a series is
#   one probe's first result on one CPU, so #series = probes x CPUs, read
#   from the report), and the spike log, 24 bytes per logged spike (at most
#   16384 per series).  Predicted growth between the shortest and the
#   longest run = sum over series of (intervals difference) x 24 B + (logged
#   spikes difference) x 24 B.  The script also prints the same figure as
#   rtsoak allocated it before issue 20 (the interval array doubled from 64
#   entries, the spike log buffer of 16384 entries was allocated whole at
#   the first spike), which is the figure the measured growth is compared
#   with: both are upper bounds now (encoded intervals, a spike log grown by
#   doubling), so "within" still means the growth is explained.
#
# How to read the output
#   One line per run: duration, samples (all probes, all CPUs), missed
#   deadlines, #series and intervals per series, logged spikes, the report's
#   size and number of JSON values, RSS at mid-run and the peak RSS in MiB.
#   Then the mid-run smaps breakdown of the longest run (what the RSS is
#   made of), the predicted and the measured growth, and the verdict.  When
#   the growth exceeds the series bound, look at the report line below it:
#   rtsoak builds every report (at the end and at each --checkpoint, 60 s
#   by default) as a jansson tree, ~45 B per JSON value plus the dumped
#   text, except the time series and spike log, which it prints straight
#   from its own arrays into the file; so only the rest of the report (the
#   "values" column counts it without the series) should cost more with a
#   longer run.  Last line:
#
#     memory: peak RSS A MiB (60 s), B MiB (600 s): goal <= 32 MiB met|MISSED; growth ...
#
#   Memory does not depend on the machine's noise much, but the number of
#   spikes does (24 bytes each in the log), so growth can differ between
#   runs.
#
# Usage
#   bench/memory.sh                (as root: SCHED_FIFO and mlockall)
#   Environment: RTSOAK (binary; default ./rtsoak, then $(dirname $0)/../rtsoak),
#   DURATIONS (seconds, space-separated, ascending; default "60 600"; e.g.
#   DURATIONS="10 30" for a quick check), INTERVAL (50us), PROBES (default:
#   rtsoak's, timer,net), SERIES_INTERVAL (default: rtsoak's, 1 s; 1ms
#   makes a day's 86 400 intervals per series in 86.4 s), LIMIT_MIB (32),
#   SAMPLE (0.5: /proc sampling period in s), VCPUS (unset: this machine;
#   N: inside the PREEMPT_RT test guest of tests/vm with N vCPUs, qemu TCG,
#   as `make check-vm` builds it; issue 20's real 8-vCPU run is VCPUS=8
#   DURATIONS="9 90" SERIES_INTERVAL=1ms INTERVAL=1ms).
#   Without /usr/bin/time (the guest has none) the peak is the child's
#   ru_maxrss from os.wait4 in python3: the same figure.
#   Exit status: 0 whatever the figures; 2 no binary, not root or a missing
#   tool; 1 a run failed.  Takes the sum of DURATIONS plus a few seconds
#   (11 min at the defaults).
set -euo pipefail

DURATIONS=${DURATIONS:-"60 600"}
INTERVAL=${INTERVAL:-50us}
PROBES=${PROBES:-}
LIMIT_MIB=${LIMIT_MIB:-32}
SAMPLE=${SAMPLE:-0.5}
SERIES_INTERVAL=${SERIES_INTERVAL:-}
TIME=/usr/bin/time
PY=/usr/bin/python3

ME=memory.sh
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

# VCPUS: this script again, in the guest (as bench/vm-compare.sh does).
if [[ -n ${VCPUS:-} && -z ${INSIDE:-} ]]; then
	[[ $VCPUS =~ ^[1-9][0-9]*$ ]] || missing "VCPUS must be a number of vCPUs (got '$VCPUS')"
	find_rtsoak
	((EUID == 0)) || missing "run as root: qemu, and rtsoak in the guest"
	command -v qemu-system-x86_64 >/dev/null || missing "qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"
	top=$(cd "$(dirname "$0")/.." && pwd)
	build=$(cd "$(dirname "$RTSOAK")" && pwd)
	guest=$(bash "$top/tests/vm/guest_build.sh" "$build/vm-cache") || die "no guest (tests/vm/guest_build.sh)"
	job=$(mktemp -d /tmp/memory-vm.XXXXXX) || die "mktemp"
	trap 'rm -rf "$job"' EXIT
	{ cp "$RTSOAK" "$job/rtsoak" && mkdir "$job/bench" && cp "$top"/bench/*.sh "$job/bench/"; } || die "cp"
	total=0
	for d in $DURATIONS; do total=$((total + d)); done
	cat >"$job/job.sh" <<JOB
#!/bin/bash
INSIDE=1 RTSOAK=/job/rtsoak DURATIONS="$DURATIONS" INTERVAL=$INTERVAL PROBES="$PROBES" \
	SERIES_INTERVAL="$SERIES_INTERVAL" LIMIT_MIB=$LIMIT_MIB SAMPLE=$SAMPLE bash /job/bench/memory.sh
JOB
	chmod +x "$job/job.sh"
	bash "$top/tests/vm/guest_run.sh" "$guest" "$job" "$VCPUS" $((total * 3 + 300))
	rc=$?
	cat "$job/console.log"
	exit $rc
fi

read -r -a DUR <<<"$DURATIONS"
((${#DUR[@]} > 0)) || missing "DURATIONS is empty"
prev=0
for d in "${DUR[@]}"; do
	[[ $d =~ ^[0-9]+$ && $d -gt 0 ]] || missing "DURATIONS: '$d' is not a positive number of seconds"
	((d > prev)) || missing "DURATIONS must be ascending (got '$DURATIONS')"
	prev=$d
done
[[ $LIMIT_MIB =~ ^[0-9]+$ ]] || missing "LIMIT_MIB must be a number of MiB (got '$LIMIT_MIB')"
[[ $SAMPLE =~ ^[0-9]*\.?[0-9]+$ ]] || missing "SAMPLE must be a number of seconds (got '$SAMPLE')"
[[ $INTERVAL =~ ^[0-9]+(ns|us|ms|s)?$ ]] || missing "INTERVAL must be like 50us (got '$INTERVAL')"

# --- tools -----------------------------------------------------------------
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rtsoak-memory.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# "time -f %M -o FILE CMD...", for when the time package is missing.
cat >"$TMP/time" <<'PYTIME'
#!/usr/bin/python3
import os, sys
out, cmd = sys.argv[4], sys.argv[5:]
pid = os.fork()
if pid == 0:
    os.execvp(cmd[0], cmd)
_, status, ru = os.wait4(pid, 0)
open(out, "w").write("%d\n" % ru.ru_maxrss)
sys.exit(os.waitstatus_to_exitcode(status))
PYTIME
chmod +x "$TMP/time"
find_rtsoak
((EUID == 0)) || missing "run as root: rtsoak needs SCHED_FIFO and mlockall"
[[ -x $PY ]] || missing "$PY not found; install it with: apt-get install python3"
command -v ps >/dev/null 2>&1 || missing "ps not found; install it with: apt-get install procps"
if [[ -x $TIME ]]; then
	how="ru_maxrss from $TIME -f %M (exact)"
else
	TIME=$TMP/time # the same figure: the child's ru_maxrss, from wait4
	how="ru_maxrss from os.wait4 in python3 (exact)"
fi


rt_version=$("$RTSOAK" --version 2>/dev/null | head -n1) || true
total=0
for d in "${DUR[@]}"; do total=$((total + d)); done
echo "# memory.sh: ${rt_version:-rtsoak} ($RTSOAK), kernel $(uname -r), $(nproc) online CPUs"
echo "# rtsoak run --interval $INTERVAL --duration Ds -q${PROBES:+ --probes $PROBES}${SERIES_INTERVAL:+ --series-interval $SERIES_INTERVAL} -o FILE   for D in $DURATIONS (~${total} s)"
echo "# peak RSS: $how; rtsoak mlockall()s, so RSS = everything it has mapped writable"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# status_kib PID FIELD: a /proc/PID/status field in KiB, empty when gone.
status_kib() {
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null || true
}

# smaps_summary PID OUT: RSS of each mapping, grouped, for the breakdown.
smaps_summary() {
	{
		grep -E '^(VmRSS|VmHWM|VmLck|Threads):' "/proc/$1/status"
		awk '/^[0-9a-f]+-[0-9a-f]+ / { name = $6; if (name == "") name = "[anon]"; split($1, a, "-") }
		     /^Rss:/ { print "map", $2, name, a[1], a[2] }' "/proc/$1/smaps"
	} >"$2" 2>/dev/null || true
}

: >"$TMP/runs"
for d in "${DUR[@]}"; do
	out="$TMP/m$d.json"
	args=(run --interval "$INTERVAL" --duration "${d}s" -q -o "$out")
	[[ -z $PROBES ]] || args+=(--probes "$PROBES")
	[[ -z $SERIES_INTERVAL ]] || args+=(--series-interval "$SERIES_INTERVAL")
	if [[ -n $TIME ]]; then
		"$TIME" -f %M -o "$TMP/time-$d" "$RTSOAK" "${args[@]}" >"$TMP/out-$d" 2>&1 &
		tpid=$!
		pid=
		for ((i = 0; i < 100; i++)); do
			pid=$(ps -o pid= --ppid "$tpid" 2>/dev/null | head -n1 | tr -d ' ') || true
			[[ -z $pid ]] || break
			sleep 0.05
		done
	else
		"$RTSOAK" "${args[@]}" >"$TMP/out-$d" 2>&1 &
		tpid=$!
		pid=$tpid
	fi
	start=$SECONDS
	hwm='' rss_mid='' smapped=''
	while kill -0 "$tpid" 2>/dev/null; do
		if [[ -n $pid ]]; then
			v=$(status_kib "$pid" VmHWM)
			[[ -z $v ]] || hwm=$v
			if [[ -z $smapped ]] && ((SECONDS - start >= d / 2)); then
				rss_mid=$(status_kib "$pid" VmRSS)
				smaps_summary "$pid" "$TMP/smaps-$d"
				smapped=1
			fi
		fi
		sleep "$SAMPLE"
	done
	rc=0
	wait "$tpid" || rc=$?
	if ((rc != 0)); then
		cat "$TMP/out-$d" >&2
		[[ -z $TIME ]] || cat "$TMP/time-$d" >&2
		die "the ${d} s run failed (exit $rc)"
	fi
	if [[ -n $TIME ]]; then
		peak=$(tail -n1 "$TMP/time-$d")
	else
		peak=$hwm
	fi
	[[ $peak =~ ^[0-9]+$ ]] || die "no peak RSS for the ${d} s run"
	echo "$d $out $peak ${hwm:-0} ${rss_mid:-0} $TMP/smaps-$d" >>"$TMP/runs"
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

$PY - "$TMP/runs" "$LIMIT_MIB" "${TIME:+exact}" <<'EOF'
import json, os, sys
from collections import defaultdict

runs_file, limit_mib, exact = sys.argv[1], int(sys.argv[2]), bool(sys.argv[3:4] and sys.argv[3])
MiB = 1024.0 * 1024.0
ENTRY = 24          # sizeof(struct series_interval) and sizeof(struct series_spike)
SPIKE_LOG = 16384   # SERIES_SPIKE_LOG: the buffer is allocated whole at the first spike
# Building a report: rtsoak makes the report but its series a jansson tree,
# then dumps it to text (the series are printed from its arrays).  Loading rtsoak reports of 0.5-1.5 MB into jansson with a
# counting allocator gave ~45 B per JSON value (malloc overhead included),
# and the dump (a buffer grown by doubling, copied on growth) ~3 x the text.
TREE_B_PER_VALUE = 45
TEXT_FACTOR = 3


def values(o):
    """JSON values in a parsed report: what jansson allocates one node for.
    Called without the series, which rtsoak never holds as a tree."""
    if isinstance(o, dict):
        return 1 + sum(values(v) for v in o.values())
    if isinstance(o, list):
        return 1 + sum(values(v) for v in o)
    return 1


def cap_of(n):
    """Capacity of a series' interval array holding n intervals (series_put)."""
    if n == 0:
        return 0
    cap = 64
    while cap < n:
        cap *= 2
    return cap


runs = []
for line in open(runs_file):
    d, path, peak, hwm, rss_mid, smaps = line.split()
    r = json.load(open(path))
    series = r.get("series")
    if series is None:
        sys.exit("%s: no time series in the report (rtsoak too old?)" % path)
    firsts = {(s["probe"], s["cpu"]) for s in series}
    res = [x for x in r["results"] if x["phase"] == "all" and (x["probe"], x["cpu"]) in firsts]
    ns = [s["intervals"]["n"] for s in series]
    logged = sum(s["spike_log"]["logged"] for s in series)
    with_spikes = sum(1 for s in series if s["spike_log"]["logged"] or s["spike_log"]["overwritten"])
    runs.append(dict(
        d=int(d), peak=int(peak) * 1024, hwm=int(hwm) * 1024, rss_mid=int(rss_mid) * 1024, smaps=smaps,
        samples=sum(x["count"] for x in res), missed=sum(x["missed"] for x in res),
        nseries=len(series), ns=ns, interval_s=series[0]["interval_ns"] / 1e9 if series else 0,
        logged=logged, with_spikes=with_spikes, size=os.path.getsize(path), values=values({k: v for k, v in r.items() if k != "series"}),
        head=len(json.dumps({k: v for k, v in r.items() if k != "series"}, indent=2)),
        checkpoints=(int(d) * 10**9 - 1) // r["config"]["checkpoint_ns"] if r["config"].get("checkpoint_ns") else 0,
        by_series={(s["probe"], s["cpu"]): (s["intervals"]["n"], s["spike_log"]["logged"]) for s in series},
        probes=sorted({s["probe"] for s in series}), cpus=sorted({s["cpu"] for s in series}),
        warnings=r["run"].get("warnings", [])))

print()
print("%6s %11s %8s %14s %8s %9s %8s %8s %8s" % ("run", "samples", "missed", "series x ivals", "spikes",
                                                  "report", "values", "RSS mid", "PEAK"))
for x in runs:
    iv = ("%d" % x["ns"][0]) if min(x["ns"]) == max(x["ns"]) else ("%d-%d" % (min(x["ns"]), max(x["ns"])))
    print("%5ds %11d %8d %14s %8d %7.1fMi %8d %6.1fMi %6.1fMi" % (
        x["d"], x["samples"], x["missed"], "%d x %s" % (x["nseries"], iv), x["logged"],
        x["size"] / MiB, x["values"], x["rss_mid"] / MiB, x["peak"] / MiB))
last = runs[-1]
print("  (series: probes %s x CPUs %s, %g s intervals; spikes: logged in the spike logs; report: JSON size;"
      % (",".join(last["probes"]), ",".join(map(str, last["cpus"])), last["interval_s"]))
print("   values: JSON values in the report but its series; RSS mid: VmRSS at mid-run; PEAK: %s)"
      % ("ru_maxrss" if exact else "last VmHWM sample, a lower bound"))
print("  checkpoints during the run (each builds the full report): %s"
      % ", ".join("%d (%d s)" % (x["checkpoints"], x["d"]) for x in runs))
if exact:
    for x in runs:
        if x["hwm"] and x["peak"] > x["hwm"]:
            print("  %ds run: the last /proc sample saw a peak of %.1f MiB; the end of the run (report, analysis) added %.1f MiB"
                  % (x["d"], x["hwm"] / MiB, (x["peak"] - x["hwm"]) / MiB))

# What the RSS is made of, at mid-run of the longest run.
if os.path.exists(last["smaps"]):
    status, groups = {}, defaultdict(lambda: [0, 0])
    for line in open(last["smaps"]):
        f = line.split()
        if f[0] == "map":
            kib, name, lo, hi = int(f[1]), f[2], int(f[3], 16), int(f[4], 16)
            size = (hi - lo) // 1024
            if name.startswith("/"):
                key = "file " + os.path.basename(name)
            elif name == "[heap]":
                key = "[heap] (main arena: housekeeping, report building)"
            elif name != "[anon]":
                key = name
            elif size in (256, 260, 264) or (size > 256 and size <= 264):
                key = "[anon] 256 KiB (thread stacks)"
            elif size <= 132:
                key = "[anon] <= 132 KiB (malloc arenas, small buffers)"
            else:
                key = "[anon] larger (big mallocs: spike logs, series, report)"
            groups[key][0] += kib
            groups[key][1] += 1
        else:
            status[f[0].rstrip(":")] = f[1]
    print()
    print("mid-run breakdown of the %d s run (smaps Rss; VmRSS %s KiB, VmLck %s KiB, %s threads):"
          % (last["d"], status.get("VmRSS", "?"), status.get("VmLck", "?"), status.get("Threads", "?")))
    for key, (kib, n) in sorted(groups.items(), key=lambda kv: -kv[1][0])[:10]:
        print("  %7d KiB  %-55s (%d mapping%s)" % (kib, key, n, "" if n == 1 else "s"))

limit = limit_mib * MiB
worst = max(x["peak"] for x in runs)
ok = worst <= limit
print()
growth_txt = ""
if len(runs) >= 2:
    a, b = runs[0], runs[-1]
    civ = csp = aiv = asp = 0
    for key, (nb, lb) in b["by_series"].items():
        na, la = a["by_series"].get(key, (0, 0))
        civ += nb - na
        csp += lb - la
        # as allocated: interval array capacity (the report borrows the series)
        aiv += cap_of(nb) - cap_of(na)
        # the spike log buffer is whole from the first spike
        asp += SPIKE_LOG if lb and not la else 0
    pred = (civ + csp) * ENTRY
    pred_alloc = (aiv + asp) * ENTRY
    grow = b["peak"] - a["peak"]
    print("predicted growth %d s -> %d s (series bound): %d intervals x 24 B + %d spikes x 24 B = %.1f KiB"
          % (a["d"], b["d"], civ, csp, pred / 1024.0))
    print("  as rtsoak allocates it (arrays doubling from 64, spike buffers): %.1f KiB" % (pred_alloc / 1024.0))
    print("measured growth of peak RSS: %+.1f KiB (%.2f MiB -> %.2f MiB)" % (grow / 1024.0, a["peak"] / MiB, b["peak"] / MiB))
    # RSS moves in pages and malloc/mmap chunks (a 128 KiB arena step, an mmap threshold): 1 MiB of slack.
    slack = 1 * MiB
    explained = grow <= pred_alloc + slack
    print("# growth %s what the series bound predicts (allowing 1 MiB for page and malloc granularity)"
          % ("within" if explained else "ABOVE"))
    dv, dt = b["values"] - a["values"], b["head"] - a["head"]
    rep = dv * TREE_B_PER_VALUE + dt * TEXT_FACTOR
    print("  the report grew by %d JSON values and %.1f KiB of text (series not counted); building it (jansson tree ~%d B per value,"
          " dump ~%d x the text) needs roughly %.1f KiB more at its peak" % (
              dv, dt / 1024.0, TREE_B_PER_VALUE, TEXT_FACTOR, rep / 1024.0))
    print("  series bound + report building: %.1f KiB, measured %+.1f KiB" % ((pred_alloc + rep) / 1024.0, grow / 1024.0))
    growth_txt = "; growth %+.1f KiB vs %.1f KiB predicted by the series bound (%.1f KiB as allocated): %s" % (
        grow / 1024.0, pred / 1024.0, pred_alloc / 1024.0, "within" if explained else "ABOVE")
print("# goal: peak RSS <= %d MiB: %s" % (limit_mib, "met" if ok else "MISSED"))
print("memory: peak RSS %s: goal <= %d MiB %s%s" % (
    ", ".join("%.1f MiB (%d s)" % (x["peak"] / MiB, x["d"]) for x in runs), limit_mib,
    "met" if ok else "MISSED", growth_txt))
EOF
