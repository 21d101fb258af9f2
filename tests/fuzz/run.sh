#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: run the libFuzzer harnesses of a build configured with
# CC=clang --enable-fuzzing (after `make fuzz`; this script builds nothing).
#
#   tests/fuzz/run.sh [--regress-only] BUILD_DIR [HARNESS...]
#
# 1. Every regression input (tests/fuzz/regress/HARNESS/*) once through its
#    harness: any crash, sanitizer report, leak or timeout fails.
# 2. Unless --regress-only: each harness for FUZZ_SECONDS on a copy of its
#    seed corpus (tests/fuzz/corpus/HARNESS: the checked-in corpus never
#    grows), FUZZ_JOBS harnesses at a time.  One line per harness: runs,
#    executions per second, corpus size, result.
#
# Environment: FUZZ_SECONDS (default 60), FUZZ_JOBS (1), FUZZ_RSS_MB (2048:
# -rss_limit_mb), FUZZ_TIMEOUT (20: -timeout, seconds per input), FUZZ_KEEP
# (a directory: keep the grown corpora and logs there), FUZZ_CONTINUE=1
# (libFuzzer's fork mode: go on after a crash and collect every crash input,
# to look past a known bug in a long run).  The harnesses write
# only into a private directory under TMPDIR, which is removed at the end
# unless something failed (then its path is printed: crash inputs, logs).
# Exit status: 0 no crash, 1 a crash or a failed regression, 2 usage.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
harnesses=(fuzz_report fuzz_cyclictest fuzz_cli fuzz_journal)
regress_only=no

usage() {
	echo "usage: $0 [--regress-only] BUILD_DIR [HARNESS...] (harnesses: ${harnesses[*]})" >&2
	exit 2
}

[ "${1:-}" = --regress-only ] && { regress_only=yes; shift; }
[ $# -ge 1 ] || usage
build=$1
shift
[ $# -gt 0 ] && harnesses=("$@")

seconds=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-1}
rss=${FUZZ_RSS_MB:-2048}
timeout=${FUZZ_TIMEOUT:-20}
for v in "$seconds" "$jobs" "$rss" "$timeout"; do
	case "$v" in
	'' | *[!0-9]* | 0) echo "run.sh: FUZZ_SECONDS, FUZZ_JOBS, FUZZ_RSS_MB and FUZZ_TIMEOUT take positive integers" >&2; exit 2 ;;
	esac
done
for h in "${harnesses[@]}"; do
	if [ ! -d "$here/corpus/$h" ]; then
		echo "run.sh: no harness '$h' (no $here/corpus/$h)" >&2
		exit 2
	fi
	if [ ! -x "$build/tests/fuzz/$h" ]; then
		echo "run.sh: $build/tests/fuzz/$h is missing: configure $build with CC=clang --enable-fuzzing and run make fuzz" >&2
		exit 2
	fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/rtsoak-fuzz-run.XXXXXX") || exit 2
# The harnesses make their private directories in here.
export TMPDIR=$work
export LSAN_OPTIONS="suppressions=$here/../lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
failed=0

# The sanitizer's or libFuzzer's one-line verdict from a log.
why() {
	local p
	for p in "runtime error|ERROR: (AddressSanitizer|LeakSanitizer)|^harness: |^fuzz_cli: |^fuzz_journal: " \
		"ERROR: libFuzzer|ALARM: working on the last Unit"; do
		grep -a -m1 -E "$p" "$1" && return
	done | cut -c1-200
}

# 1. Regression inputs, each once.
nreg=0
for h in "${harnesses[@]}"; do
	[ -d "$here/regress/$h" ] || continue
	for f in "$here/regress/$h"/*; do
		[ -f "$f" ] || continue
		case "$f" in *.md | */README) continue ;; esac
		nreg=$((nreg + 1))
		log="$work/regress-$h-$(basename "$f").log"
		if "$build/tests/fuzz/$h" -rss_limit_mb="$rss" -timeout="$timeout" -runs=1 "$f" >"$log" 2>&1; then
			rm -f "$log"
		else
			echo "regress $h/$(basename "$f"): FAILED: $(why "$log") (log: $log)"
			failed=1
		fi
	done
done
if [ "$failed" -eq 0 ]; then
	echo "regress: $nreg inputs, no crash"
else
	echo "regress: $nreg inputs, FAILED"
fi

# 2. Each harness for a fixed time on a copy of its seed corpus.
fuzz_one() {
	local h=$1 dir="$work/corpus-$h" log="$work/fuzz-$h.log" dict=() fork=()
	mkdir -p "$dir" "$work/crash-$h"
	cp "$here/corpus/$h"/* "$dir/"
	[ -f "$here/$h.dict" ] && dict=(-dict="$here/$h.dict")
	[ "${FUZZ_CONTINUE:-0}" = 1 ] && fork=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
	"$build/tests/fuzz/$h" -max_total_time="$seconds" -rss_limit_mb="$rss" -timeout="$timeout" \
		-print_final_stats=1 -artifact_prefix="$work/crash-$h/" "${dict[@]}" "${fork[@]}" \
		"$dir" >"$log" 2>&1
	echo $? >"$work/rc-$h"
}

summary() {
	local h=$1 log="$work/fuzz-$h.log" rc runs rate corp seeds crash ncrash last
	rc=$(cat "$work/rc-$h" 2>/dev/null || echo 1)
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	# Fork mode prints "#RUNS: cov: .. exec/s RATE oom/timeout/crash: ..." per job.
	last=$(grep -a "oom/timeout/crash:" "$log" | tail -1)
	if [ -n "$last" ]; then
		runs=$(echo "$last" | sed -n 's/^#\([0-9]*\):.*/\1/p')
		rate=$((${runs:-0} / seconds))
	fi
	seeds=$(find "$here/corpus/$h" -type f | wc -l)
	corp=$(find "$work/corpus-$h" -type f | wc -l)
	crash=$(find "$work/crash-$h" -type f | head -1)
	ncrash=$(find "$work/crash-$h" -type f | wc -l)
	# The reason, from the crash input run again (fork mode's log lacks it).
	if [ -n "$crash" ]; then
		"$build/tests/fuzz/$h" -runs=1 -timeout="$timeout" -rss_limit_mb="$rss" "$crash" \
			>"$work/repro-$h.log" 2>&1
		log="$work/repro-$h.log"
	fi
	if [ "$rc" -eq 0 ] && [ -z "$crash" ]; then
		result=ok
	elif [ "$ncrash" -gt 1 ]; then
		result="CRASH: $ncrash inputs in $work/crash-$h, the first: $(why "$log")"
		failed=1
	else
		result="CRASH: $(why "$log")${crash:+ (input: $crash)} (log: $log)"
		failed=1
	fi
	printf '%-16s %4s s  %9s runs  %6s/s  corpus %3s -> %4s  %s\n' "$h" "$seconds" \
		"${runs:-?}" "${rate:-?}" "$seeds" "$corp" "$result"
}

if [ "$regress_only" = no ]; then
	running=0
	for h in "${harnesses[@]}"; do
		if [ "$running" -ge "$jobs" ]; then
			wait -n
			running=$((running - 1))
		fi
		fuzz_one "$h" &
		running=$((running + 1))
	done
	wait
	for h in "${harnesses[@]}"; do
		summary "$h"
	done
fi

if [ -n "${FUZZ_KEEP:-}" ]; then
	mkdir -p "$FUZZ_KEEP" && cp -r "$work"/. "$FUZZ_KEEP"/ && echo "run.sh: corpora and logs kept in $FUZZ_KEEP"
fi
if [ "$failed" -eq 0 ]; then
	rm -rf "$work"
else
	echo "run.sh: crash inputs and logs kept in $work"
fi
exit "$failed"
