#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The readers (report, compare, cyclictest import) against big, hostile
# and inconsistent files (issue 12, items 7, 10, 11, 12, 15, 16): memory
# O(file size), inconsistent reports refused naming the field, cyclictest
# command-line numbers that would overflow left unknown, a FIFO refused
# at once, no raw control character from a file on the terminal, and out
# of memory is exit 3 for both formats.  Every file is made here from
# tests/data.
. "$(dirname "$0")/lib.sh"

DATA="$top_srcdir/tests/data"
# A sanitizer build: ASan's quarantine (256 MB of freed memory held back)
# and allocation stacks are its own, not rtsoak's; and ASan reserves
# terabytes of address space, so ulimit -v cannot make malloc fail.
asan=0
ldd "$RTSOAK" 2>/dev/null | grep -q libasan && asan=1
asan_opt() { echo "${ASAN_OPTIONS:+$ASAN_OPTIONS:}$1"; }
plan 30
cd "$WORK" || exit 1

# edit IN OUT PYTHON: r is the parsed file; OUT is written compact.
edit() {
	"$PYTHON3" -c 'import json,sys
r = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(r, open(sys.argv[2], "w"))' "$1" "$2" "$3"
}

# refused FILE WORD NAME: report exits 2 with one line that names WORD.
refused() {
	local err rc
	err=$("$RTSOAK" report "$1" 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 2 ] && [ "$(echo "$err" | wc -l)" -eq 1 ] && echo "$err" | grep -q -- "$2"
	ok $? "$3: exit 2 naming $2 (rc $rc: $err)"
}

# --- 10: inconsistent reports -----------------------------------------
# Three counts that sum to 2^64 on top of the real ones: the uint64 sum
# wraps back to count.
edit "$DATA/report-small.json" wrap.json '
r["results"][0]["histogram"] = [[0, 1, 2**63 - 1], [1, 2, 2**63 - 1], [2, 3, 2]] + r["results"][0]["histogram"]'
refused wrap.json "histogram" "histogram counts wrapping past 2^64 to equal count"
edit "$DATA/report-small.json" minmax.json '
r["results"][0]["min_ns"] = r["results"][0]["max_ns"] + 1'
refused minmax.json "min_ns" "min > max"
edit "$DATA/report-small.json" seriescpu.json 'r["series"][0]["cpu"] = 2**32 - 1'
refused seriescpu.json "series\[0\].*cpu" "series cpu 2^32-1"
edit "$DATA/report-small.json" pct.json '
a = r["results"][0]; a["p90_ns"] = a["p50_ns"] - 1'
refused pct.json "p90_ns" "non-monotonic percentiles"
edit "$DATA/report-small.json" pctmax.json '
a = r["results"][0]; a["p99_999_ns"] = a["max_ns"] + 5'
refused pctmax.json "p99_999_ns" "a percentile above max"
# A mean outside min..max fed a sum of squares past 2^128 (the fuzzer).
edit "$DATA/report-small.json" mean.json '
a = r["results"][0]; a["mean_ns"] = a["max_ns"] + 1'
refused mean.json "mean_ns" "a mean above max"
edit "$DATA/report-small.json" stddev.json '
a = r["results"][0]; a["stddev_ns"] = a["max_ns"] + 1'
refused stddev.json "stddev_ns" "a stddev above max"
refused "$top_srcdir/tests/fuzz/regress/fuzz_cyclictest/avg-above-max.json" "avg" \
	"a cyclictest avg above its max"

# --- 7: limits -----------------------------------------------------------
edit "$DATA/report-small.json" entries.json '
a = r["results"][0]; a["histogram"] = [[0, 1, 0]] * 4000 + a["histogram"]'
refused entries.json "limit" "a histogram with more entries than buckets"
edit "$DATA/report-small.json" longname.json '
for a in r["results"] + r["aggregates"]: a["phase"] = "p" * 300'
refused longname.json "255" "a phase name over 255 bytes"
edit "$DATA/report-small.json" toptop.json '
a = r["results"][0]; a["top"] = a["top"] * 200'
refused toptop.json "4096" "a top list over 4096 samples"

# --- 7: memory is O(file size) -------------------------------------------
if [ -x /usr/bin/time ]; then
	"$PYTHON3" "$top_srcdir/tests/make_many_results.py" "$DATA/report-small.json" many.json \
		--results 20000
	size_kb=$(($(stat -c %s many.json) / 1024))
	limit_kb=$((10 * size_kb + 20480)) # 10x the file + a fixed 20 MB
	for what in "report many.json" "report many.json --html many.html" \
		"compare many.json many.json"; do
		# shellcheck disable=SC2086
		ASAN_OPTIONS=$(asan_opt quarantine_size_mb=0:malloc_context_size=0) \
			/usr/bin/time -o rss -f %M "$RTSOAK" $what >/dev/null 2>&1
		rc=$?
		rss=$(tail -1 rss)
		[ $rc -le 1 ] && [ "$rss" -le "$limit_kb" ]
		ok $? "$what (20000 results, $size_kb KiB): peak RSS $rss KiB <= $limit_kb KiB (rc $rc)"
	done
else
	for i in 1 2 3; do skip "/usr/bin/time is not installed (apt-get install time)"; done
fi
# The histograms read are the ones written: a sparse model, same bytes.
"$RTSOAK" report "$DATA/report-small.json" --json back.json && same_bytes "$DATA/report-small.json" back.json
ok $? "report-small.json reads and writes back byte for byte"

# --- 11: cyclictest command lines with huge numbers ----------------------
# Each overflowed a long before (UBSan: signed overflow), giving wrapped
# numbers; now the command line counts as not understood, and no duration
# or interval is made up from it.
n=0
for cmd in "-D 999999999999d" "-D 99999999999h" "-i 99999999999999999" \
	"-D 99999999999" "-d 999999999999999 -t 4096" "-i 9223372036854775807"; do
	n=$((n + 1))
	edit "$DATA/cyclictest-noh.json" "ct$n.json" "
r['cmdline:'] = 'cyclictest -m -q -p95 $cmd -t2 -a --json=x.json'"
	out=$("$RTSOAK" report "ct$n.json" --color never 2>&1)
	rc=$?
	dur=$(echo "$out" | head -1)
	[ $rc -eq 0 ] && echo "$out" | grep -q "cmdline not understood (a number in .* is out of range)" &&
		! echo "$dur" | grep -q -- "-[0-9]"
	ok $? "cyclictest '$cmd': cmdline unknown, not overflowed (rc $rc: $(echo "$out" | grep cmdline))"
done

# --- 12: a FIFO (or anything not a regular file) is refused at once ------
mkfifo fifo
err=$(timeout 5 "$RTSOAK" report fifo 2>&1)
rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q "not a regular file"
ok $? "report FIFO: exit 2 at once, not blocked in open() (rc $rc: $err)"
err=$(timeout 5 "$RTSOAK" compare "$DATA/report-small.json" fifo 2>&1)
rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q "fifo: not a regular file"
ok $? "compare A FIFO: exit 2 at once (rc $rc: $err)"
err=$(timeout 5 "$RTSOAK" report . 2>&1)
rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q "not a regular file"
ok $? "report DIRECTORY: exit 2 (rc $rc: $err)"

# --- 15: no raw control characters from a file ---------------------------
# A window title (OSC 0 ... BEL) and a clear screen (CSI 2J) in a warning,
# the hostname, a load spec, a config key and a probe name.
edit "$DATA/report-small.json" evil.json '
e = "\x1b]0;pwned\x07\x1b[2J\u009b"
r["run"]["warnings"].append("evil " + e)
r["system"]["hostname"] = "host" + e
r["loads"] = [{"name": "cpu", "spec": "cpu" + e}]
r["config"]["evil" + e] = 1
for a in r["results"] + r["aggregates"]: a["phase"] = "ph" + e
r["config"]["phases"] = ["ph" + e]'
"$RTSOAK" report evil.json --color never >evil.txt 2>&1
rc=$?
[ $rc -eq 0 ] && ! grep -q $'\x1b' evil.txt && ! grep -q $'\x07' evil.txt &&
	! grep -q $'\xc2\x9b' evil.txt && grep -q 'evil \\x1b\]0;pwned\\x07' evil.txt
ok $? "report --color never: no ESC, BEL or C1 byte, the warning shown escaped (rc $rc)"
"$RTSOAK" compare "$DATA/report-small.json" evil.json --color never >evilc.txt 2>&1
rc=$?
[ $rc -le 1 ] && ! grep -q $'\x1b' evilc.txt && ! grep -q $'\x07' evilc.txt &&
	! grep -q $'\xc2\x9b' evilc.txt && grep -q 'evil\\x1b' evilc.txt
ok $? "compare --color never: no ESC, BEL or C1 byte, the config key shown escaped (rc $rc)"
"$RTSOAK" report evil.json --html - >evil.html 2>/dev/null &&
	"$RTSOAK" compare "$DATA/report-small.json" evil.json --html - >>evil.html 2>/dev/null
rc=$?
[ $rc -le 1 ] && [ -s evil.html ] && ! grep -q $'\x1b' evil.html && ! grep -q $'\x07' evil.html &&
	! grep -q $'\xc2\x9b' evil.html
ok $? "report/compare --html -: no ESC, BEL or C1 byte either (rc $rc)"

# --- 16: out of memory is exit 3, for both formats -----------------------
# The loader reads the file into one buffer of its size, and copies it only
# to turn NaN into null (issue 20).  With 48 MB of blanks and room for 32 MB
# more than a small file needs, the buffer cannot be had; with 48 MB of
# "nan" (60 MB as "null") and room for 70 MB, the text fits and the NaN-free
# copy does not.  Under ASan, allocations above max_allocation_size_mb
# return NULL instead.
base=""
for kb in 16384 24576 32768 49152 65536 98304 131072; do
	[ $asan -eq 1 ] && break
	if (ulimit -v $kb && "$RTSOAK" report "$DATA/cyclictest-h.json" >/dev/null 2>&1); then
		base=$kb
		break
	fi
done
# oom FILE ROOM_MB WHAT: report FILE with ROOM_MB more than base (or
# allocations up to ROOM_MB under ASan) exits 3 saying out of memory.
oom() {
	local err rc
	if [ $asan -eq 1 ]; then
		err=$(ASAN_OPTIONS=$(asan_opt allocator_may_return_null=1:max_allocation_size_mb="$2") \
			"$RTSOAK" report "$1" 2>&1 >/dev/null)
		rc=$?
	elif [ -n "$base" ]; then
		err=$( (ulimit -v $((base + $2 * 1024)) && "$RTSOAK" report "$1") 2>&1 >/dev/null)
		rc=$?
	else
		err="no address-space limit up to 128 MB runs rtsoak here"
		rc=-1
	fi
	[ $rc -eq 3 ] && echo "$err" | grep -q "out of memory"
	ok $? "out of memory $3: exit 3 (rc $rc: $(echo "$err" | head -1))"
}
for f in "$DATA/cyclictest-h.json" "$DATA/report-small.json"; do
	big=oom-$(basename "$f")
	{ head -c $((48 << 20)) /dev/zero | tr '\0' ' '; cat "$f"; } >"$big"
	oom "$big" 32 "reading $(basename "$f")"
	rm -f "$big"
done
"$PYTHON3" -c 'import sys
t = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(t.replace("{", "{\"pad\": [" + ",".join(["nan"] * (12 << 20)) + "],", 1))' \
	"$DATA/cyclictest-nan.json" oom-nan.json
oom oom-nan.json "$([ $asan -eq 1 ] && echo 55 || echo 70)" "copying cyclictest-nan.json without NaN"
rm -f oom-nan.json
done_testing
