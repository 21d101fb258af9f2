#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/series-memory.sh: the live memory of a 256-CPU x 24 h run's recorders,
# time series and probe threads, without the machine.
#
# What it measures
#   Peak resident memory of bench/series_drive (built by `make bench-tools`),
#   a synthetic driver of the recorder and series code: it allocates what
#   `rtsoak run` allocates per probe thread for $CPUS CPUs x the timer and
#   the local net probe (a recorder per result and phase, the first
#   result's series feed and housekeeping side: 2 x CPUS series, 4 x CPUS
#   recorders), locks memory as rtsoak does (mlockall, so everything
#   allocated is resident: run as root), then feeds every thread $SAMPLES
#   samples per series interval for $INTERVALS intervals (default 86 400:
#   24 h at rtsoak's default 1 s series interval) through the calls
#   probe_record() makes (series_note, recorder_add), time advanced
#   synthetically, draining every series after each interval as the
#   housekeeping tick does, and flushes them at the end.  No real sleeping:
#   it takes seconds.  Issue 20's goal: a 256-CPU x 24 h run
#   (timer + net) within 256 MiB RSS.
#
#   Peak RSS is ru_maxrss from `/usr/bin/time -f %M` (exact; the driver's
#   own VmHWM agrees).  Bytes per interval = (VmHWM - RSS after set-up) /
#   intervals, over all series, and per series.
#
#   Once per entry of $SPIKE_EVERY (default "60 0"): one sample above the
#   spike threshold every 60 intervals (each series' spike log grows by
#   doubling as its spikes come, up to 16384 x 24 B), and no spikes at all.
#
#   What is represented: the recorders (dense histogram, top-K), the series
#   feeds (interval and spike rings), the interval stores (series_store.h:
#   ~3 B an interval in blocks of up to 4 KiB), the spike logs, and the
#   probe threads: each thread's set-up runs on a real thread created as
#   rtsoak creates one (the probes' 64 KiB stack, locked; malloc's single
#   arena), which then waits.  What is not: the net probe's sockets and
#   sender thread, the report rtsoak builds at each checkpoint and at the
#   end, the loads and the trace recorder.  So the driver's peak is a lower
#   bound of the run's: a MISS here is a MISS of the run; a PASS is not yet
#   one (bench/memory.sh with VCPUS=8 measures a real run in the guest).
#
# How to read the output
#   One line per spike setting: peak RSS, RSS after set-up, growth, bytes
#   per interval (all series) and per series-interval, the interval stores'
#   and spike logs' share, and the time the feeding took; then
#     series-memory: peak A MiB (spikes), B MiB (no spikes): goal <= 256 MiB PASS|MISS
#
# Usage
#   bench/series-memory.sh          (as root, to lock memory as rtsoak does)
#   Environment: SERIES_DRIVE (the driver; default ./bench/series_drive, then
#   $(dirname $0)/series_drive: `make bench-tools` in the build directory),
#   CPUS (256), INTERVALS (86400), SAMPLES (2 per thread and interval),
#   SPIKE_EVERY ("60 0"), PHASES (1), LIMIT (100000: --series-limit),
#   LIMIT_MIB (256).
#   Exit status: 0 whatever the figures; 2 no driver or a missing tool; 1 the
#   driver failed.  About 25 s and 1.5 GB of memory at the defaults.
set -euo pipefail

CPUS=${CPUS:-256}
INTERVALS=${INTERVALS:-86400}
SAMPLES=${SAMPLES:-2}
SPIKE_EVERY=${SPIKE_EVERY:-"60 0"}
PHASES=${PHASES:-1}
LIMIT=${LIMIT:-100000}
LIMIT_MIB=${LIMIT_MIB:-256}
TIME=/usr/bin/time

ME=series-memory.sh
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

for v in CPUS INTERVALS SAMPLES PHASES LIMIT LIMIT_MIB; do
	[[ ${!v} =~ ^[0-9]+$ && ${!v} -gt 0 ]] || missing "$v must be a positive number (got '${!v}')"
done
if [[ -n ${SERIES_DRIVE:-} ]]; then
	:
elif [[ -x ./bench/series_drive ]]; then
	SERIES_DRIVE=./bench/series_drive
elif [[ -x "$(dirname "$0")/series_drive" ]]; then
	SERIES_DRIVE="$(dirname "$0")/series_drive"
else
	missing "no bench/series_drive: build it with 'make bench-tools' in the build directory and run from there, or set SERIES_DRIVE=/path"
fi
[[ -x $SERIES_DRIVE ]] || missing "SERIES_DRIVE=$SERIES_DRIVE is not an executable"
[[ -x $TIME ]] || missing "needs $TIME for an exact peak; install it with: apt-get install time"
((EUID == 0)) || echo "# not root: memory may not be locked as rtsoak locks it (RSS then counts only touched pages)"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/rtsoak-series-memory.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

echo "# series-memory.sh: $SERIES_DRIVE, kernel $(uname -r), $(nproc) online CPUs, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
echo "# series_drive --cpus $CPUS --intervals $INTERVALS --samples $SAMPLES --phases $PHASES --limit $LIMIT --spike-every S   for S in $SPIKE_EVERY"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

summary=()
for s in $SPIKE_EVERY; do
	[[ $s =~ ^[0-9]+$ ]] || missing "SPIKE_EVERY: '$s' is not a number"
	rc=0
	"$TIME" -f %M -o "$TMP/time" "$SERIES_DRIVE" --cpus "$CPUS" --intervals "$INTERVALS" \
		--samples "$SAMPLES" --phases "$PHASES" --limit "$LIMIT" --spike-every "$s" \
		>"$TMP/out" 2>"$TMP/err" || rc=$?
	if ((rc != 0)); then
		cat "$TMP/err" >&2
		die "series_drive failed (exit $rc)"
	fi
	peak=$(tail -n1 "$TMP/time")
	[[ $peak =~ ^[0-9]+$ ]] || die "no peak RSS from $TIME"
	declare -A f=()
	while read -r k v; do f[$k]=$v; done <"$TMP/out"
	label=$([[ $s == 0 ]] && echo "no spikes" || echo "a spike every $s intervals")
	verdict=$( ((peak <= LIMIT_MIB * 1024)) && echo PASS || echo MISS)
	awk -v peak="$peak" -v setup="${f[rss_setup_kib]}" -v hwm="${f[vmhwm_kib]}" \
		-v arrays="${f[interval_array_bytes]}" -v logs="${f[spike_logs]}" -v lim="$LIMIT_MIB" \
		-v bpi="${f[bytes_per_interval]}" -v bpsi="${f[bytes_per_series_interval]}" \
		-v secs="${f[feed_seconds]}" -v label="$label" -v series="${f[series]}" \
		-v recs="${f[recorders]}" -v n="${f[series_n]}" -v lk="${f[locked]}" \
		-v logged="${f[spikes_logged]}" -v logb="${f[spike_log_bytes]}" -v stalls="${f[stalls]}" -v verdict="$verdict" 'BEGIN {
		M = 1024
		printf "%s: %d series of %s intervals, %d recorders, memory locked: %s, %d spikes logged, %d stalls\n", label, series, n, recs, lk, logged, stalls
		printf "  peak RSS %.1f MiB (set-up %.1f MiB, growth %.1f MiB): goal <= %d MiB: %s\n", peak / M, setup / M, (hwm - setup) / M, lim, verdict
		printf "  %.0f B per interval over all series, %.1f B per series-interval; interval stores %.1f MiB as allocated, %d spike logs (%.1f MiB); fed in %.1f s\n", bpi, bpsi, arrays / 1048576, logs, logb / 1048576, secs
	}'
	summary+=("$(awk -v p="$peak" 'BEGIN { printf "%.1f MiB", p / 1024 }') ($label)")
	unset f
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
worst=0
for x in "${summary[@]}"; do
	v=${x%% MiB*}
	awk -v v="$v" -v w="$worst" 'BEGIN { exit !(v > w) }' && worst=$v
done
line=$(printf '%s, ' "${summary[@]}")
scale=
((CPUS == 256 && INTERVALS == 86400)) || scale=" (the goal is for 256 CPUs x 86400 intervals: this run is not that size)"
echo "series-memory: ${CPUS} CPUs x ${INTERVALS} intervals: peak ${line%, }: goal <= ${LIMIT_MIB} MiB $(awk -v w="$worst" -v l="$LIMIT_MIB" 'BEGIN { print (w <= l ? "PASS" : "MISS") }')$scale"
