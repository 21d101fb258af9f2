#!/usr/bin/env bash
# bench/loads.sh: do the slab and cpu loads do what they claim?
#
# What it measures
#   1. slab: kernel slab frees per second, system-wide (perf stat -a on the
#      kmem:kfree and kmem:kmem_cache_free tracepoints, summed), over a
#      $WINDOW s window while each of these runs on the load CPUs $LOAD_CPUS:
#        idle       nothing (the machine's own background)
#        hackbench  hackbench $HACKBENCH_ARGS under taskset -c $LOAD_CPUS
#        slab       rtsoak run --loads slab (timer probe on $PROBE_CPUS)
#      The window starts $WARMUP s after the load does.  The three alternate
#      for $ROUNDS rounds, so slow drifts of a shared machine's noise hit all
#      alike.  Goal: slab's frees/s >= 2x hackbench's (median over rounds).
#      Only frees of an object count: kfree() fires its tracepoint for
#      kfree(NULL) too, which every sendmsg()/recvmsg() does a few times
#      (___sys_sendmsg, ___sys_recvmsg, __ip_make_skb), so unfiltered counts
#      flatter a datagram load against hackbench's read()/write().  The events
#      are therefore filtered with 'ptr != 0' (RAW=1: count them as they are).
#   2. cpu: the busy share of each load CPU (from /proc/stat: everything but
#      idle and iowait) over a $WINDOW s window while rtsoak runs
#      --loads cpu:load=50.  Goal: 45-55 % on every load CPU.  The probe
#      CPU's own share includes the (small) probe thread if it is also a
#      load CPU.
#
# How to read the output
#   One line per round with each figure and the ratio slab/hackbench; then
#   the medians and PASS/MISS against the goal.  If the spread between rounds
#   is larger than the difference between hackbench and slab, the run says
#   nothing (re-run on a quieter machine).  The idle column says how much of
#   each figure is background.
#
# Usage
#   bench/loads.sh              (as root: perf on tracepoints system-wide)
#   Environment: RTSOAK (binary; default ./rtsoak, then $(dirname $0)/../rtsoak),
#   LOAD_CPUS (0-1), PROBE_CPUS (0), ROUNDS (3), WINDOW (3, seconds),
#   WARMUP (1, seconds), HACKBENCH_ARGS ("-g 2 -l 100000"),
#   SLAB_SPEC (slab), CPU_SPEC (cpu:load=50), WORKDIR (rtsoak --workdir;
#   default: rtsoak's own), ONLY (slab or cpu: run one measurement), RAW (0).
#   LOAD_DRIVER: instead of rtsoak, run each load as `$LOAD_DRIVER SPEC:cpus=$LOAD_CPUS
#   SECONDS` (a test driver that runs one load for SECONDS and exits).
#   Exit status: 0 whatever the figures; 2 missing tools or binary; 1 a run
#   failed.  About ROUNDS * (3 * WINDOW + 2 * WARMUP + 1) + WARMUP + WINDOW + 1 s
#   (41 s at the defaults).
set -euo pipefail

LOAD_CPUS=${LOAD_CPUS:-0-1}
PROBE_CPUS=${PROBE_CPUS:-0}
ROUNDS=${ROUNDS:-3}
WINDOW=${WINDOW:-3}
WARMUP=${WARMUP:-1}
HACKBENCH_ARGS=${HACKBENCH_ARGS:--g 2 -l 100000}
SLAB_SPEC=${SLAB_SPEC:-slab}
CPU_SPEC=${CPU_SPEC:-cpu:load=50}
ONLY=${ONLY:-}
RAW=${RAW:-0}
EVENTS="kmem:kfree and kmem:kmem_cache_free"
if [[ $RAW == 1 ]]; then
	PERF_EVENTS=(-e kmem:kfree -e kmem:kmem_cache_free)
else
	PERF_EVENTS=(-e kmem:kfree --filter 'ptr != 0' -e kmem:kmem_cache_free --filter 'ptr != 0')
	EVENTS+=" (ptr != 0)"
fi

ME=loads.sh
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

for v in ROUNDS WINDOW WARMUP; do
	[[ ${!v} =~ ^[0-9]+$ ]] || missing "$v must be a non-negative integer (got '${!v}')"
done
((ROUNDS > 0 && WINDOW > 0)) || missing "ROUNDS and WINDOW must be > 0"
[[ -z $ONLY || $ONLY == slab || $ONLY == cpu ]] || missing "ONLY must be slab or cpu (got '$ONLY')"
[[ $RAW == 0 || $RAW == 1 ]] || missing "RAW must be 0 or 1 (got '$RAW')"
# A load runs for the warm-up, the window and a second to spare.
DURATION=$((WARMUP + WINDOW + 1))

# --- tools -----------------------------------------------------------------
find_tools() {
	if [[ -n ${LOAD_DRIVER:-} ]]; then
		[[ -x $LOAD_DRIVER ]] || missing "LOAD_DRIVER=$LOAD_DRIVER is not an executable"
	else
		find_rtsoak
	fi
	command -v perf >/dev/null 2>&1 ||
		missing "perf not found; install it with: apt-get install linux-perf"
	command -v hackbench >/dev/null 2>&1 ||
		missing "hackbench not found; install it with: apt-get install rt-tests"
	command -v taskset >/dev/null 2>&1 ||
		missing "taskset not found; install it with: apt-get install util-linux"
	command -v setsid >/dev/null 2>&1 ||
		missing "setsid not found; install it with: apt-get install util-linux"
	# Tracepoints need root (or perf_event_paranoid <= -1) and tracefs.
	if ! perf stat -a -x, "${PERF_EVENTS[@]}" -- true >/dev/null 2>"$tmp/perf.err"; then
		cat "$tmp/perf.err" >&2
		missing "perf cannot count $EVENTS system-wide: run as root, with tracefs mounted (mount -t tracefs none /sys/kernel/tracing)"
	fi
}

# "0-2,5" -> "0 1 2 5"
expand_cpus() {
	local part c out=()
	IFS=, read -ra parts <<<"$1"
	for part in "${parts[@]}"; do
		if [[ $part =~ ^([0-9]+)-([0-9]+)$ ]]; then
			for ((c = BASH_REMATCH[1]; c <= BASH_REMATCH[2]; c++)); do
				out+=("$c")
			done
		elif [[ $part =~ ^[0-9]+$ ]]; then
			out+=("$part")
		else
			missing "LOAD_CPUS: '$1' is not a CPU list"
		fi
	done
	echo "${out[@]}"
}

# --- running loads ---------------------------------------------------------
# Start load SPEC in the background for DURATION seconds; sets LOAD_PID.
start_load() {
	local spec=$1
	if [[ -n ${LOAD_DRIVER:-} ]]; then
		"$LOAD_DRIVER" "$spec:cpus=$LOAD_CPUS" "$DURATION" >"$tmp/load.out" 2>&1 &
	else
		"$RTSOAK" run --probes timer --cpus "$PROBE_CPUS" --loads "$spec" \
			--load-cpus "$LOAD_CPUS" --duration "${DURATION}s" -q \
			${WORKDIR:+--workdir "$WORKDIR"} -o "$tmp/r.json" >"$tmp/load.out" 2>&1 &
	fi
	LOAD_PID=$!
}

wait_load() {
	if ! wait "$LOAD_PID"; then
		cat "$tmp/load.out" >&2
		die "the load run failed (see above)"
	fi
	LOAD_PID=''
}

# Start hackbench on the load CPUs in a session of its own (so that all its
# processes can be stopped together); sets HB_PID.
start_hackbench() {
	# shellcheck disable=SC2086 # HACKBENCH_ARGS is a word list
	setsid taskset -c "$LOAD_CPUS" hackbench $HACKBENCH_ARGS >"$tmp/hackbench.out" 2>&1 &
	HB_PID=$!
}

stop_hackbench() {
	kill -TERM -- "-$HB_PID" 2>/dev/null || true
	wait "$HB_PID" 2>/dev/null || true
	HB_PID=''
}

cleanup() {
	[[ -n ${HB_PID:-} ]] && kill -KILL -- "-$HB_PID" 2>/dev/null
	[[ -n ${LOAD_PID:-} ]] && kill -TERM "$LOAD_PID" 2>/dev/null && wait "$LOAD_PID" 2>/dev/null
	rm -rf "$tmp"
}

# --- measurements ----------------------------------------------------------
# The measure_* functions leave their result in FREES or BUSY (not on stdout:
# a $(...) subshell would hide the background processes from cleanup).

# Slab frees per second, system-wide, over WINDOW seconds from now -> FREES.
frees_per_sec() {
	perf stat -a -x, "${PERF_EVENTS[@]}" -- sleep "$WINDOW" 2>"$tmp/perf.csv" >/dev/null ||
		{ cat "$tmp/perf.csv" >&2; die "perf stat failed"; }
	FREES=$(awk -F, -v w="$WINDOW" '$3 ~ /^kmem:/ { if ($1 !~ /^[0-9]+$/) bad = 1; s += $1 }
		END { if (bad) exit 1; printf "%d\n", s / w }' "$tmp/perf.csv") ||
		{ cat "$tmp/perf.csv" >&2; die "perf could not count $EVENTS"; }
}

measure_idle_frees() {
	frees_per_sec
}

measure_hackbench_frees() {
	start_hackbench
	sleep "$WARMUP"
	frees_per_sec
	kill -0 "$HB_PID" 2>/dev/null ||
		{ cat "$tmp/hackbench.out" >&2; die "hackbench ended before the window did: raise -l in HACKBENCH_ARGS"; }
	stop_hackbench
}

measure_slab_frees() {
	start_load "$SLAB_SPEC"
	sleep "$WARMUP"
	frees_per_sec
	wait_load
}

# Busy share (%) of each load CPU over WINDOW seconds from now, as "cpuN=P"
# -> BUSY.
cpu_busy() {
	local cpus
	cpus=$(expand_cpus "$LOAD_CPUS")
	grep '^cpu[0-9]' /proc/stat >"$tmp/stat0"
	sleep "$WINDOW"
	grep '^cpu[0-9]' /proc/stat >"$tmp/stat1"
	# Fields: user nice system idle iowait irq softirq steal (guest is in user).
	BUSY=$(awk -v want="$cpus" '
		BEGIN { n = split(want, c, " "); for (i = 1; i <= n; i++) keep["cpu" c[i]] = 1 }
		{ t = 0; for (i = 2; i <= 9; i++) t += $i; idle = $5 + $6 }
		FNR == NR { t0[$1] = t; i0[$1] = idle; next }
		($1 in keep) { dt = t - t0[$1]; if (dt <= 0) dt = 1
			printf "%s=%.1f ", $1, 100 * (dt - (idle - i0[$1])) / dt }
		END { print "" }' "$tmp/stat0" "$tmp/stat1")
}

measure_cpu_busy() {
	start_load "$CPU_SPEC"
	sleep "$WARMUP"
	cpu_busy
	wait_load
}

median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# --- reports ---------------------------------------------------------------
report_slab() {
	local r idle hb slab ratios=() idles=() hbs=() slabs=()
	echo "slab: kernel slab frees/s ($EVENTS, all CPUs), ${WINDOW} s windows"
	echo "      load CPUs $LOAD_CPUS; hackbench $HACKBENCH_ARGS; rtsoak --loads $SLAB_SPEC"
	printf '  %-6s %12s %12s %12s %8s\n' round idle hackbench slab ratio
	for ((r = 1; r <= ROUNDS; r++)); do
		measure_idle_frees
		idle=$FREES
		measure_hackbench_frees
		hb=$FREES
		measure_slab_frees
		slab=$FREES
		idles+=("$idle") hbs+=("$hb") slabs+=("$slab")
		ratios+=("$(awk -v a="$slab" -v b="$hb" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')")
		printf '  %-6s %12d %12d %12d %7sx\n' "$r" "$idle" "$hb" "$slab" "${ratios[-1]}"
	done
	idle=$(printf '%s\n' "${idles[@]}" | median)
	hb=$(printf '%s\n' "${hbs[@]}" | median)
	slab=$(printf '%s\n' "${slabs[@]}" | median)
	r=$(printf '%s\n' "${ratios[@]}" | median)
	printf '  %-6s %12.0f %12.0f %12.0f %7.2fx  goal >= 2.00x: %s\n' median "$idle" "$hb" "$slab" \
		"$r" "$(awk -v r="$r" 'BEGIN { print (r >= 2 ? "PASS" : "MISS") }')"
}

report_cpu() {
	local b verdict
	echo "cpu: busy share of each load CPU (/proc/stat), ${WINDOW} s window, rtsoak --loads $CPU_SPEC"
	measure_cpu_busy
	b=$BUSY
	verdict=$(awk -v b="$b" 'BEGIN { n = split(b, kv, " "); ok = n > 0
		for (i = 1; i <= n; i++) { split(kv[i], p, "="); if (p[2] < 45 || p[2] > 55) ok = 0 }
		print (ok ? "PASS" : "MISS") }')
	echo "  $b  goal 45-55 % each: $verdict"
}

tmp=$(mktemp -d)
HB_PID=''
LOAD_PID=''
trap cleanup EXIT
trap 'exit 1' INT TERM
find_tools
[[ $ONLY == cpu ]] || report_slab
[[ $ONLY == slab ]] || report_cpu
