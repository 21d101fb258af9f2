#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/readers.sh: time and peak memory of reading a report with many results.
#
# What it measures
#   `rtsoak report FILE` (the text summary), `rtsoak report FILE --html` and
#   `rtsoak compare FILE FILE` on a report with $RESULTS results (default
#   100 000: the timer probe on 1000 CPUs in 100 phases, every third result
#   with samples; tests/make_many_results.py), for $RTSOAK and, when
#   $BEFORE is set (e.g. BEFORE=/tmp/rtsoak-before), for that binary too,
#   with the ratio before / after.  Wall and user+system seconds and peak
#   RSS (ru_maxrss from /usr/bin/time -f %M, exact: the kernel's high-water
#   mark handed over at reaping), and the peak as a multiple of the file's
#   size (the readers' goal: at most 10x; docs/BENCHMARKS.md).
#
#   Wall time depends on what else the machine runs; user+system is the
#   steadier figure on a shared machine.
#
# Usage: [RTSOAK=build/rtsoak] [BEFORE=/tmp/rtsoak-before] [RESULTS=100000]
#        bench/readers.sh
set -u
ME=readers.sh
. "$(dirname "$0")/lib.sh"
find_rtsoak
[[ -x /usr/bin/time ]] || missing "needs /usr/bin/time (Debian package time)"
: "${RESULTS:=100000}"
: "${PYTHON3:=python3}"
SRC="$(cd "$(dirname "$0")/.." && pwd)"
TMP=$(mktemp -d /tmp/rtsoak-readers.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

"$PYTHON3" "$SRC/tests/make_many_results.py" "$SRC/tests/data/report-small.json" \
	"$TMP/many.json" --results "$RESULTS" || die "make_many_results.py failed"
size=$(stat -c %s "$TMP/many.json")
echo "file: $RESULTS results, $((size / 1024)) KiB"

# measure BINARY ARGS...: "wall cpu rss_kib" of one run.
measure() {
	local bin=$1
	shift
	/usr/bin/time -o "$TMP/t" -f "%e %U %S %M" "$bin" "$@" >/dev/null 2>"$TMP/err"
	local rc=$?
	[[ $rc -le 1 ]] || die "$bin $* exited $rc: $(head -1 "$TMP/err")"
	awk '{ printf "%.2f %.2f %d\n", $1, $2 + $3, $4 }' "$TMP/t"
}

printf "%-34s %-8s %8s %8s %10s %7s\n" command binary wall_s cpu_s peak_KiB x_file
for cmd in "report many.json" "report many.json --html many.html" \
	"compare many.json many.json"; do
	cd "$TMP" || exit 1
	# shellcheck disable=SC2086
	read -r w c m < <(measure "$RTSOAK" $cmd)
	printf "%-34s %-8s %8s %8s %10s %7.1f\n" "$cmd" after "$w" "$c" "$m" \
		"$(echo "$m * 1024 / $size" | bc -l)"
	if [[ -n ${BEFORE:-} ]]; then
		# shellcheck disable=SC2086
		read -r bw bc bm < <(measure "$BEFORE" $cmd)
		printf "%-34s %-8s %8s %8s %10s %7.1f\n" "" before "$bw" "$bc" "$bm" \
			"$(echo "$bm * 1024 / $size" | bc -l)"
		printf "%-34s %-8s %8.1f %8.1f %10.1f\n" "" ratio "$(echo "$bw / $w" | bc -l)" \
			"$(echo "$bc / $c" | bc -l)" "$(echo "$bm / $m" | bc -l)"
	fi
	cd - >/dev/null || exit 1
done
