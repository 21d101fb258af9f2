#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/checkpoint-io.sh: how much does a run with many checkpoints write,
# against its final report's size, and does each checkpoint cost more as
# the run gets longer?
#
# What it measures
#   `rtsoak run --duration $DURATION --checkpoint $CHECKPOINT
#   --series-interval $SERIES_INTERVAL -q -o FILE` (default 30 s, a
#   checkpoint every second, 1 ms series intervals: the series grow 1000
#   intervals per second per series, as a ~1000-times-longer soak's would
#   at 1 s), then the bytes the whole run wrote against the final report's
#   size.  Issue 20's goal: total bytes written by a run <= 2 x its final
#   report's size however many checkpoints it takes, and each checkpoint's
#   housekeeping time bounded by the data since the last one.
#
#   Bytes written: the kernel's I/O accounting, /proc/PID/io.  write_bytes
#   (the goal's figure) counts the page cache pages the process dirtied for
#   storage, so it stays 0 on tmpfs: the report goes to a directory under
#   $DIR (default /var/tmp) and the script says when that is tmpfs.  wchar
#   (bytes handed to write()) is printed beside it; cancelled_write_bytes
#   counts the dirty pages of replaced checkpoints that were never written
#   back (rtsoak writes each checkpoint to a temporary file and renames it
#   over the last).
#
#   Reading the last value reliably: a process's /proc/PID/io disappears
#   when it exits, and a poll misses whatever it wrote after the last
#   sample (the final report).  So rtsoak runs as the only child of a
#   subshell, which reaps it with `wait` and then reads its *own*
#   /proc/$BASHPID/io: when a parent reaps a child, the kernel adds the
#   child's whole I/O accounting to the parent's (wait_task_zombie(), like
#   the children's rusage), and a forked subshell starts from zero and
#   writes nothing itself.  That total is exact; the script checks that it
#   is no less than the last poll.
#
#   Per checkpoint: rtsoak records nothing about its checkpoints' cost (the
#   report has config.checkpoint_ns only; the progress line says how long
#   ago the last one was).  So the script polls, every $SAMPLE s, the
#   process's wchar and the CPU time of its main (housekeeping) thread,
#   which builds and writes every checkpoint (/proc/PID/task/PID/schedstat,
#   ns; the tick's series drains run there too and are counted with it).
#   A checkpoint is a run of polls during which wchar grew by 4 KiB or more
#   (the run takes (duration - 1 ns) / checkpoint_ns of them, from the
#   report; a later run of polls is the final write); its bytes are
#   that growth, and its housekeeping time is the thread's CPU time from the
#   end of the previous checkpoint to the end of this one (the building
#   comes before the write), which is an upper bound: it includes the ~10
#   ticks per second between them.  CPU time, not wall time: the wall time
#   of a checkpoint on this shared VM is mostly other programs'.  The
#   verdict for "bounded by the data since the last one": every period adds
#   the same data here, so the last checkpoints should cost what the first
#   ones did; the script calls it met when the mean of the last three is at
#   most 2 x the mean of the 2nd to 4th (the first one's period includes the
#   run's start-up) (its own reading of the goal, which names no factor).
#
# How to read the output
#   The run's settings, the load average, then:
#     total written   write_bytes, wchar, cancelled_write_bytes
#     final report    its size, and the bytes written before the final write
#     ratio           write_bytes / final size, against the goal (<= 2x): PASS|MISS
#     checkpoints     how many were seen, the 2nd-4th's and the last three's
#                     bytes and housekeeping CPU ms, the ratio: PASS|MISS;
#                     then the same per kind (since issue 20 most checkpoints
#                     only append to the series log, a few also rewrite the
#                     summary): each kind's first two against its last two
#   and one line per checkpoint with SHOW=all.
#
# Usage
#   bench/checkpoint-io.sh         (as root: SCHED_FIFO and mlockall)
#   Environment: RTSOAK (binary; default ./rtsoak, then $(dirname $0)/../rtsoak),
#   DURATION (s, default 30), CHECKPOINT (1s), SERIES_INTERVAL (1ms),
#   INTERVAL (the probes' period, rtsoak's default 1ms), PROBES (default:
#   rtsoak's, timer,net), DIR (where the report goes, /var/tmp: not tmpfs),
#   SAMPLE (poll period in s, 0.05), SHOW (all: every checkpoint).
#   Exit status: 0 whatever the figures; 2 no binary, not root or a missing
#   tool; 1 the run failed.  Takes DURATION plus a few seconds.
set -euo pipefail

DURATION=${DURATION:-30}
CHECKPOINT=${CHECKPOINT:-1s}
SERIES_INTERVAL=${SERIES_INTERVAL:-1ms}
INTERVAL=${INTERVAL:-}
PROBES=${PROBES:-}
DIR=${DIR:-/var/tmp}
SAMPLE=${SAMPLE:-0.05}
SHOW=${SHOW:-}
PY=${PYTHON3:-python3}

ME=checkpoint-io.sh
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

[[ $DURATION =~ ^[0-9]+$ && $DURATION -gt 0 ]] || missing "DURATION must be a number of seconds (got '$DURATION')"
[[ $SAMPLE =~ ^[0-9]*\.?[0-9]+$ ]] || missing "SAMPLE must be a number of seconds (got '$SAMPLE')"
find_rtsoak
((EUID == 0)) || missing "run as root: rtsoak needs SCHED_FIFO and mlockall"
command -v "$PY" >/dev/null 2>&1 || missing "$PY not found; install it with: apt-get install python3"
[[ -d $DIR ]] || missing "DIR=$DIR is not a directory"

TMP=$(mktemp -d "$DIR/rtsoak-checkpoint-io.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fstype=$(stat -f -c %T "$TMP")

args=(run --duration "${DURATION}s" --checkpoint "$CHECKPOINT" --series-interval "$SERIES_INTERVAL"
	-q -o "$TMP/r.json")
[[ -z $INTERVAL ]] || args+=(--interval "$INTERVAL")
[[ -z $PROBES ]] || args+=(--probes "$PROBES")

rt_version=$("$RTSOAK" --version 2>/dev/null | head -n1) || true
echo "# checkpoint-io.sh: ${rt_version:-rtsoak} ($RTSOAK), kernel $(uname -r), $(nproc) online CPUs"
echo "# rtsoak ${args[*]}"
echo "# report in $TMP ($fstype)"
[[ $fstype != tmpfs ]] || echo "# WARNING: $DIR is tmpfs: write_bytes stays 0 there; set DIR= to a disk"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# The subshell: rtsoak is its only child; once reaped, its I/O is in ours.
(
	"$RTSOAK" "${args[@]}" >"$TMP/out" 2>&1 &
	echo $! >"$TMP/pid"
	rc=0
	wait $! || rc=$?
	echo "$rc" >"$TMP/rc"
	cat "/proc/$BASHPID/io" >"$TMP/io.final"
) &
sub=$!
pid=
for ((i = 0; i < 200; i++)); do
	[[ -s $TMP/pid ]] && pid=$(<"$TMP/pid") && break
	sleep 0.01
done
[[ -n $pid ]] || die "rtsoak did not start"

# Poll with builtins only (no fork per sample): time, wchar, write_bytes,
# the main thread's CPU ns.
: >"$TMP/samples"
while kill -0 "$pid" 2>/dev/null; do
	wchar='' wb='' cpu=''
	while read -r k v; do
		case $k in
		wchar:) wchar=$v ;;
		write_bytes:) wb=$v ;;
		esac
	done <"/proc/$pid/io" 2>/dev/null || true
	read -r cpu _ <"/proc/$pid/task/$pid/schedstat" 2>/dev/null || true
	[[ -z $wchar || -z $cpu ]] || echo "$EPOCHREALTIME $wchar $wb $cpu" >>"$TMP/samples"
	sleep "$SAMPLE"
done
wait "$sub" || true
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
rc=$(cat "$TMP/rc" 2>/dev/null || echo '?')
if [[ $rc != 0 ]]; then
	cat "$TMP/out" >&2
	die "the run failed (exit $rc)"
fi
[[ -s $TMP/io.final && -s $TMP/r.json ]] || die "no final I/O figures or no report"

"$PY" - "$TMP/samples" "$TMP/io.final" "$TMP/r.json" "$SHOW" <<'EOF'
import json, os, sys

samples_file, io_file, report, show = sys.argv[1:5]
io = {}
for line in open(io_file):
    k, v = line.split(":")
    io[k.strip()] = int(v)
size = os.path.getsize(report)
r = json.load(open(report))
series = r.get("series") or []
nint = max((s["intervals"]["n"] for s in series), default=0)
MB = 1e6

samples = [tuple(float(x) for x in l.split()) for l in open(samples_file) if l.strip()]
last_wchar = samples[-1][1] if samples else 0
last_wb = samples[-1][2] if samples else 0
print("# %d series of up to %d intervals; %d polls" % (len(series), nint, len(samples)))
if samples and (io["wchar"] < last_wchar or io["write_bytes"] < last_wb):
    print("# WARNING: the reaped total is below the last poll: the I/O figures are not exact")

# Write groups: runs of polls during which wchar grew, as
# (bytes, cpu_ns since the previous group's end, end time, wchar and
# write_bytes at its start).  Groups under 4 KiB are not reports (rtsoak
# writes a few bytes to /proc and /sys files at the start).
groups, small = [], [0, 0]
prev_end_cpu = samples[0][3] if samples else 0
i = 1
while i < len(samples):
    if samples[i][1] > samples[i - 1][1]:
        start = i - 1
        while i + 1 < len(samples) and samples[i + 1][1] > samples[i][1]:
            i += 1
        b = samples[i][1] - samples[start][1]
        if b < 4096:
            small[0] += 1
            small[1] += b
        else:
            groups.append((b, samples[i][3] - prev_end_cpu, samples[i][0], samples[start][1], samples[start][2]))
            prev_end_cpu = samples[i][3]
    i += 1
# How many checkpoints the run took: one every checkpoint_ns while the run
# lasted (the housekeeping loop ends at the deadline, before the final
# write).  Groups beyond that are the final write, seen by the polls while
# the process was still there.
every = (r.get("config") or {}).get("checkpoint_ns") or 0
# The configured duration: the measured one ends a little after it.
dur = (r.get("config") or {}).get("duration_ns") or r["run"]["duration_ns"]
expected = (dur - 1) // every if every else 0
if len(groups) > expected:
    cps = groups[:expected]
    before_wc, before_wb = groups[expected][3], groups[expected][4]
else:
    cps = groups
    before_wc, before_wb = last_wchar, last_wb

wb, wc = io["write_bytes"], io["wchar"]
ratio = wb / size if size else float("inf")
print("total written:   write_bytes %.2f MB, wchar %.2f MB, cancelled_write_bytes %.2f MB"
      % (wb / MB, wc / MB, io.get("cancelled_write_bytes", 0) / MB))
print("final report:    %.2f MB; written before the final write: write_bytes %.2f MB, wchar %.2f MB"
      % (size / MB, before_wb / MB, before_wc / MB))
if small[0]:
    print("                 (and %d small writes, %d bytes in all, not counted as checkpoints)" % tuple(small))
print("ratio:           write_bytes / final size = %.1fx (wchar %.1fx): goal <= 2x: %s"
      % (ratio, wc / size, "PASS" if ratio <= 2 else "MISS"))
# The first checkpoint's period includes the run's start: compare the
# second to fourth with the last three.
if len(cps) >= 7:
    first, last = cps[1:4], cps[-3:]
    fb = sum(c[0] for c in first) / 3
    lb = sum(c[0] for c in last) / 3
    fc = sum(c[1] for c in first) / 3
    lc = sum(c[1] for c in last) / 3
    grow = lc / fc if fc else float("inf")
    print("checkpoints:     %d seen of %d; 2nd-4th %.0f KB, %.1f ms housekeeping CPU each; last three %.0f KB, %.1f ms:"
          " last/2nd-4th %.1fx bytes, %.1fx CPU: goal bounded by the data since the last one (<= 2x): %s"
          % (len(cps), expected, fb / 1e3, fc / 1e6, lb / 1e3, lc / 1e6, lb / fb if fb else 0, grow,
             "PASS" if grow <= 2 else "MISS"))
else:
    print("checkpoints:     %d seen of %d: too few to compare the first with the last (longer DURATION?)" % (len(cps), expected))
# Since issue 20 a checkpoint appends the series to the series log and
# rewrites the summary only when the byte budget allows: two kinds, told
# apart by size (a summary is the statistics of every result; an append is
# what the series gained in one period).  Each kind's CPU time, first
# against last: both must stay flat for "bounded by the data since the last one".
if len(cps) >= 4:
    med = sorted(c[0] for c in cps)[len(cps) // 2]
    kinds = (("log appends", [c for c in cps[1:] if c[0] <= 2 * med]),
             ("with a summary", [c for c in cps[1:] if c[0] > 2 * med]))
    for name, ks in kinds:
        if len(ks) >= 4:
            a, z = ks[:2], ks[-2:]
            fa, fz = sum(c[1] for c in a) / 2, sum(c[1] for c in z) / 2
            print("  %-15s %d of them: the first two %.0f KB, %.1f ms CPU; the last two %.0f KB, %.1f ms: %.1fx CPU: %s"
                  % (name, len(ks), sum(c[0] for c in a) / 2e3, fa / 1e6, sum(c[0] for c in z) / 2e3, fz / 1e6,
                     fz / fa if fa else 0, "PASS" if fa and fz / fa <= 2 else "MISS"))
        else:
            print("  %-15s %d of them: too few to compare" % (name, len(ks)))
if show == "all":
    t0 = samples[0][0] if samples else 0
    print("%4s %9s %10s %12s" % ("#", "at_s", "bytes", "hk_cpu_ms"))
    for k, (b, c, t, _, _) in enumerate(cps, 1):
        print("%4d %9.2f %10d %12.2f" % (k, t - t0, b, c / 1e6))
print("checkpoint-io: %.2f MB written for a %.2f MB report, %.1fx: goal <= 2x %s"
      % (wb / MB, size / MB, ratio, "PASS" if ratio <= 2 else "MISS"))
EOF
