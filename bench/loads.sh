#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
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
#      alike.  With XCPU=0 the goal is slab's frees/s >= 2x hackbench's (median
#      over rounds); by default it is 1b's.
#      Only frees of an object count: kfree() fires its tracepoint for
#      kfree(NULL) too, which every sendmsg()/recvmsg() does a few times
#      (___sys_sendmsg, ___sys_recvmsg, __ip_make_skb), so unfiltered counts
#      flatter a datagram load against hackbench's read()/write().  The events
#      are therefore filtered with 'ptr != 0' (RAW=1: count them as they are).
#   1b. slab, cross-CPU (XCPU=1, the default): what the load is for is frees
#      that take SLUB's slow path, above all frees on another CPU than the
#      one that allocated the object: such an object's slab is never the
#      freeing CPU's own slab, so its free goes through __slab_free() (the
#      remote freelist cmpxchg, put_cpu_partial(), the list_lock flushes
#      with IRQs off).  Only 2 of this kernel's caches (maple_node,
#      vm_area_struct) have sheaves (sheaf_capacity != 0), so this holds for
#      all the caches the loads use.  Raw frees/s also counts the fast-path
#      frees of a task freeing what it just allocated on its own CPU.  In a
#      second $WINDOW s window (the same load still running) perf record
#      takes the kmem:kmalloc, kmem:kmem_cache_alloc, kmem:kfree and
#      kmem:kmem_cache_free events of 1 object address in 2^SAMPLE_BITS
#      (the address bits 12 up, so an object's allocation and its free are
#      both taken or both not, and no field but the address decides); a free
#      whose allocation was seen in the window is "matched", and "cross" if
#      it ran on another CPU.  Figures are scaled back by 2^SAMPLE_BITS.
#      Allocations over 8 KiB (the page allocator's, not a slab's) are left
#      out, and so are objects that no process of the load allocated (the
#      processes under hackbench's, or under rtsoak's, pid), so a shared
#      machine's background does not count (idle: nothing to count).  The
#      same figure per CPU second the load's processes used in the window
#      (user + system from /proc/PID/stat; the "CPU s" column) is the goal:
#      on a busy machine CFS gives hackbench's 80 processes a bigger share of
#      the CPUs than the slab load's 6 workers, so per second the two
#      compare their shares of the machine; per CPU second they compare how
#      hard each presses on the slow path with the CPU it gets, which is
#      what a quiet machine's per-second figures would compare.  Goal:
#      slab's cross-CPU frees per CPU second >= 2x hackbench's.  The
#      per-second ratios (cross-CPU and raw) are printed for the record.  Neither
#      figure sees local frees to a slab that is not the CPU's own (also slow
#      path; telling them apart needs CONFIG_SLUB_STATS or kprobes, which
#      this kernel has not), nor the IRQs-off time itself (no irqsoff tracer).
#   2. cpu: the busy share of each load CPU (from /proc/stat: everything but
#      idle and iowait) over a $WINDOW s window while rtsoak runs
#      --loads cpu:load=50.  Goal: 45-55 % on every load CPU.  The probe
#      CPU's own share includes the (small) probe thread if it is also a
#      load CPU.
#
# How to read the output
#   One line per round with each figure and the ratio slab/hackbench; then
#   the medians and PASS/MISS against the goal (XCPU=0: raw frees/s, as
#   before).  If the spread between rounds
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
#   SECONDS` (a test driver that runs one load for SECONDS and exits; it is
#   stopped with SIGTERM once measured, and must then exit 0 or by the signal).
#   XCPU (1; 0: raw frees/s only, as before), SAMPLE_BITS (5: 1 address in 32).
#   Exit status: 0 whatever the figures; 2 missing tools or binary; 1 a run
#   failed.  About ROUNDS * (3 * WINDOW + 2 * WARMUP) + WARMUP + WINDOW s
#   plus perf's start, stop and the parsing of its record: 60-80 s at the
#   defaults on a busy 2-CPU VM (XCPU=0: ~35 s).
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
XCPU=${XCPU:-1}
SAMPLE_BITS=${SAMPLE_BITS:-5}
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
[[ $XCPU == 0 || $XCPU == 1 ]] || missing "XCPU must be 0 or 1 (got '$XCPU')"
if ! [[ $SAMPLE_BITS =~ ^[0-9]+$ ]] || ((SAMPLE_BITS > 16)); then
	missing "SAMPLE_BITS must be an integer 0..16 (got '$SAMPLE_BITS')"
fi
# The address bits that pick the sampled objects: 12 .. 12 + SAMPLE_BITS - 1.
# Bit 12 up: below it, in a small cache, the bits would pick some objects of
# every slab page; from it up, whole pages, whatever the object size.
XMASK=$(printf '0x%x' $((((1 << SAMPLE_BITS) - 1) << 12)))
XFILTER="ptr != 0 && !(ptr & $XMASK)"
XEVENTS=()
for e in kmalloc kmem_cache_alloc kfree kmem_cache_free; do
	XEVENTS+=(-e "kmem:$e" --filter "$XFILTER")
done
# A load is stopped (SIGTERM: rtsoak writes its report and exits 0) once
# its windows are measured; DURATION only bounds it.  perf takes seconds to
# start and stop on a busy machine, so a duration of just the windows would
# end the load inside the last one.
DURATION=$((WARMUP + 2 * WINDOW + 60))

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
	if ((XCPU)) && ! perf record -q -a -o "$tmp/probe.data" "${XEVENTS[@]}" -- true \
		>/dev/null 2>"$tmp/perf.err"; then
		cat "$tmp/perf.err" >&2
		missing "perf cannot record the kmem alloc/free events system-wide (XCPU=0 skips the cross-CPU figure)"
	fi
	rm -f "$tmp/probe.data"
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

# Stop the load (it has been measured) and check that it ran well.
stop_load() {
	local rc=0
	kill -0 "$LOAD_PID" 2>/dev/null ||
		{ cat "$tmp/load.out" >&2; die "the load ended before it was measured (see above)"; }
	kill -TERM "$LOAD_PID" 2>/dev/null || true
	wait "$LOAD_PID" || rc=$?
	if ((rc != 0)) && ! [[ -n ${LOAD_DRIVER:-} && $rc == 143 ]]; then
		cat "$tmp/load.out" >&2
		die "the load run failed (exit $rc; see above)"
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

# "PID TICKS" (user + system clock ticks) of every process under pid $1,
# not $1 itself (hackbench's parent and rtsoak's main process only wait).
tree_ticks() {
	# A process that ends between the glob and the read makes cat fail.
	{ cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk -v root="$1" '
		{ pid = $1; sub(/^.*\) /, ""); ppid[pid] = $2; t[pid] = $12 + $13 }
		END { for (p in ppid) { q = ppid[p]; while (q > 1 && q != root) q = ppid[q]
			if (q == root) print p, t[p] } }'
}

# Record the kmem events over WINDOW seconds from now, and the CPU time
# (XCPU_S, seconds) and pids of the processes under pid $1.
record_cross() {
	# The CPU times are read by the command perf runs: perf starts it once
	# the events are on and stops them when it ends, so both cover the
	# same window however long perf takes to start and stop on a busy
	# machine.
	perf record -q -a -o "$tmp/x.data" "${XEVENTS[@]}" -- bash -c "$(declare -f tree_ticks)
		tree_ticks $1 >'$tmp/t0'; sleep $WINDOW; tree_ticks $1 >'$tmp/t1'" \
		>/dev/null 2>"$tmp/x.err" || { cat "$tmp/x.err" >&2; die "perf record failed"; }
	kill -0 "$1" 2>/dev/null || die "the load ended before the cross-CPU window did"
	# A process that ended in the window is missed; one that started in it
	# counts whole.
	XCPU_S=$(awk -v hz="$(getconf CLK_TCK)" 'FNR == NR { t0[$1] = $2; next }
		{ s += $2 - ($1 in t0 ? t0[$1] : 0) } END { printf "%.3f\n", s / hz }' "$tmp/t0" "$tmp/t1")
	cat "$tmp/t0" "$tmp/t1" | awk '{ print $1 }' | sort -u >"$tmp/pids"
}

# Count what record_cross recorded (run once the load is stopped, so as not
# to compete with it for the CPUs) -> XFREES (cross-CPU frees/s, scaled),
# XSHARE (% of the matched frees that are cross),
# XPERCPU (cross-CPU frees per CPU second of the load's processes).
count_cross() {
	# perf says so on stderr when its buffers overflowed: the figure would
	# miss events, and not evenly.
	if grep -qi 'lost' "$tmp/x.err"; then
		cat "$tmp/x.err" >&2
		echo "$ME: warning: perf lost events in the cross-CPU window; raise SAMPLE_BITS" >&2
	fi
	read -r XFREES XSHARE XPERCPU < <(perf script -i "$tmp/x.data" -F pid,cpu,event,trace \
		2>/dev/null | awk -v w="$WINDOW" -v scale=$((1 << SAMPLE_BITS)) -v cpu_s="$XCPU_S" '
		FNR == NR { mine[$1] = 1; next }
		{ pid = $1; cpu = $2; ev = $3; ptr = ""; big = 0
		  for (i = 4; i <= NF; i++) {
			if ($i ~ /^ptr=/) ptr = substr($i, 5)
			else if ($i ~ /^bytes_alloc=/ && substr($i, 13) + 0 > 8192) big = 1
		  } }
		ptr == "" { next }
		# Only objects the load allocated: not the background of a
		# shared machine.  Any free of them counts, whoever runs it.
		ev ~ /^kmem:(kmalloc|kmem_cache_alloc):$/ {
			if (big || !(pid in mine)) delete at[ptr]; else at[ptr] = cpu; next }
		ev ~ /^kmem:(kfree|kmem_cache_free):$/ && (ptr in at) {
			matched++; if (at[ptr] != cpu) cross++; delete at[ptr] }
		END { printf "%d %.1f %d\n", cross * scale / w, (matched ? 100 * cross / matched : 0),
			(cpu_s > 0 ? cross * scale / cpu_s : 0) }' \
		"$tmp/pids" -)
	rm -f "$tmp/x.data"
	[[ -n $XSHARE ]] || die "could not read perf's record of the kmem events"
}

measure_idle_frees() {
	frees_per_sec
}

measure_hackbench_frees() {
	start_hackbench
	sleep "$WARMUP"
	frees_per_sec
	((XCPU == 0)) || record_cross "$HB_PID"
	kill -0 "$HB_PID" 2>/dev/null ||
		{ cat "$tmp/hackbench.out" >&2; die "hackbench ended before the window did: raise -l in HACKBENCH_ARGS"; }
	stop_hackbench
	((XCPU == 0)) || count_cross
}

measure_slab_frees() {
	start_load "$SLAB_SPEC"
	sleep "$WARMUP"
	frees_per_sec
	((XCPU == 0)) || record_cross "$LOAD_PID"
	stop_load
	((XCPU == 0)) || count_cross
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
	stop_load
}

median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# --- reports ---------------------------------------------------------------
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

report_slab() {
	local r idle hb slab ratios=() idles=() hbs=() slabs=()
	local xhb xslab xhbs=() xslabs=() xratios=() shb sslab shbs=() sslabs=()
	local phb pslab phbs=() pslabs=() pratios=() chb cslab chbs=() cslabs=()
	echo "slab: kernel slab frees/s ($EVENTS, all CPUs), ${WINDOW} s windows"
	echo "      load CPUs $LOAD_CPUS; hackbench $HACKBENCH_ARGS; rtsoak --loads $SLAB_SPEC"
	if ((XCPU)); then
		echo "      cross: frees on another CPU than the allocation's, of objects the load allocated"
		echo "      (1 address in $((1 << SAMPLE_BITS)), scaled), next ${WINDOW} s window; per CPU s: of the load's processes"
		printf '  %-6s %8s | %9s %9s %6s | %9s %9s %6s | %7s | %9s %9s %6s | %9s\n' round idle \
			hackbench slab ratio 'hb cross' 'slab' ratio 'cross %' 'hb /CPUs' 'slab' ratio 'CPU s'
	else
		printf '  %-6s %12s %12s %12s %8s\n' round idle hackbench slab ratio
	fi
	for ((r = 1; r <= ROUNDS; r++)); do
		measure_idle_frees
		idle=$FREES
		measure_hackbench_frees
		hb=$FREES xhb=${XFREES:-0} shb=${XSHARE:-0} phb=${XPERCPU:-0} chb=${XCPU_S:-0}
		measure_slab_frees
		slab=$FREES xslab=${XFREES:-0} sslab=${XSHARE:-0} pslab=${XPERCPU:-0} cslab=${XCPU_S:-0}
		idles+=("$idle") hbs+=("$hb") slabs+=("$slab")
		ratios+=("$(ratio "$slab" "$hb")")
		if ((XCPU)); then
			xhbs+=("$xhb") xslabs+=("$xslab") shbs+=("$shb") sslabs+=("$sslab")
			phbs+=("$phb") pslabs+=("$pslab") chbs+=("$chb") cslabs+=("$cslab")
			xratios+=("$(ratio "$xslab" "$xhb")") pratios+=("$(ratio "$pslab" "$phb")")
			printf '  %-6s %8d | %9d %9d %5sx | %9d %9d %5sx | %3.0f/%-3.0f | %9d %9d %5sx | %4.1f/%-4.1f\n' \
				"$r" "$idle" "$hb" "$slab" "${ratios[-1]}" "$xhb" "$xslab" "${xratios[-1]}" \
				"$shb" "$sslab" "$phb" "$pslab" "${pratios[-1]}" "$chb" "$cslab"
		else
			printf '  %-6s %12d %12d %12d %7sx\n' "$r" "$idle" "$hb" "$slab" "${ratios[-1]}"
		fi
	done
	idle=$(printf '%s\n' "${idles[@]}" | median)
	hb=$(printf '%s\n' "${hbs[@]}" | median)
	slab=$(printf '%s\n' "${slabs[@]}" | median)
	r=$(printf '%s\n' "${ratios[@]}" | median)
	if ((XCPU)); then
		local xr pr
		xhb=$(printf '%s\n' "${xhbs[@]}" | median)
		xslab=$(printf '%s\n' "${xslabs[@]}" | median)
		shb=$(printf '%s\n' "${shbs[@]}" | median)
		sslab=$(printf '%s\n' "${sslabs[@]}" | median)
		phb=$(printf '%s\n' "${phbs[@]}" | median)
		pslab=$(printf '%s\n' "${pslabs[@]}" | median)
		xr=$(printf '%s\n' "${xratios[@]}" | median)
		pr=$(printf '%s\n' "${pratios[@]}" | median)
		chb=$(printf '%s\n' "${chbs[@]}" | median)
		cslab=$(printf '%s\n' "${cslabs[@]}" | median)
		printf '  %-6s %8.0f | %9.0f %9.0f %5.2fx | %9.0f %9.0f %5.2fx | %3.0f/%-3.0f | %9.0f %9.0f %5.2fx | %4.1f/%-4.1f\n' \
			median "$idle" "$hb" "$slab" "$r" "$xhb" "$xslab" "$xr" "$shb" "$sslab" \
			"$phb" "$pslab" "$pr" "$chb" "$cslab"
		printf '  goal: cross-CPU frees per CPU second >= 2.00x hackbench: %s (%.2fx)\n' \
			"$(awk -v r="$pr" 'BEGIN { print (r >= 2 ? "PASS" : "MISS") }')" "$pr"
		printf '  for the record: cross-CPU frees/s %.2fx (CPU s used: hackbench %.1f, slab %.1f); raw frees/s %.2fx\n' \
			"$xr" "$chb" "$cslab" "$r"
	else
		printf '  %-6s %12.0f %12.0f %12.0f %7.2fx  goal >= 2.00x: %s\n' median "$idle" "$hb" "$slab" \
			"$r" "$(awk -v r="$r" 'BEGIN { print (r >= 2 ? "PASS" : "MISS") }')"
	fi
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
