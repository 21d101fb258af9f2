#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The series of a report are read by hand when an element has the writer's
# exact shape (reports/json_read.c, series_fast), and by jansson otherwise
# (issue 20).  Both must give the same model and the same errors: each case
# edits one series element of a real report and writes it twice, compact in
# the writer's shape (the fast path tries it) and with blanks after ',' and
# ':' (only jansson reads it); the two must exit alike and print the same
# message (line and column of a syntax error aside), or write back the same
# report byte for byte.  A report with long series shows the fast path is
# taken (jansson's tree of the columns costs twice its memory), and that
# errors found after its text was given back are still named right.  No
# root needed; every file is made here from tests/data.
. "$(dirname "$0")/lib.sh"

DATA="$top_srcdir/tests/data"
asan=0
ldd "$RTSOAK" 2>/dev/null | grep -q libasan && asan=1
plan 48
cd "$WORK" || exit 1

# tests/data/report-spike.json: two series of 301 intervals with spike logs.
SRC=src.json
"$RTSOAK" report "$DATA/report-spike.json" --json "$SRC" && same_bytes "$DATA/report-spike.json" "$SRC"
ok $? "report-spike.json reads and writes back byte for byte (the fast path's round trip)"

# variant NAME K EDIT [TEXT]: NAME/fast/r.json and NAME/slow/r.json, SRC
# with its series element K (0-based) changed by EDIT (python on e, the
# element as a dict), then printed compact (fast) or with blanks (slow), and
# TEXT (python on t, the printed element, with re) applied to each.
variant() {
	"$PYTHON3" - "$SRC" "$@" <<'EOF'
import json, os, re, sys
src, name, k, edit = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
text = sys.argv[5] if len(sys.argv) > 5 else ""
lines = open(src).read().split("\n")
at = [i for i, l in enumerate(lines) if l.startswith('    {"probe"')][k]
tail = "," if lines[at].endswith(",") else ""
e = json.loads(lines[at][:len(lines[at]) - len(tail)])
exec(edit)
for d, sep in (("fast", (",", ":")), ("slow", (", ", ": "))):
    t = json.dumps(e, separators=sep)
    exec(text)
    os.makedirs(os.path.join(name, d), exist_ok=True)
    out = lines[:at] + ["    " + t + tail] + lines[at + 1:]
    open(os.path.join(name, d, "r.json"), "w").write("\n".join(out))
EOF
}

# run NAME D: report NAME/D/r.json --json (in NAME/D, so that messages name
# the same file): rc in NAME/D/rc, stderr with line and column numbers
# blanked in NAME/D/err.
run() {
	(cd "$1/$2" && "$RTSOAK" report r.json --json out.json >/dev/null 2>err.raw; echo $? >rc)
	sed -E 's/line -?[0-9]+/line N/g; s/column -?[0-9]+/column N/g' "$1/$2/err.raw" >"$1/$2/err"
}

# same NAME WANT DESC: both forms of NAME read alike.  WANT "=": both read
# and write back SRC; "ok": both read and write back the same bytes; else
# both exit 2 with one line holding WANT (a fixed string), the same line.
same() {
	local name=$1 want=$2 rc_f rc_s err
	run "$name" fast
	run "$name" slow
	rc_f=$(cat "$name/fast/rc")
	rc_s=$(cat "$name/slow/rc")
	err=$(head -1 "$name/fast/err.raw")
	if [ "$want" = "=" ] || [ "$want" = ok ]; then
		[ "$rc_f" -eq 0 ] && [ "$rc_s" -eq 0 ] &&
			same_bytes "$name/slow/out.json" "$name/fast/out.json" &&
			{ [ "$want" = ok ] || same_bytes "$SRC" "$name/fast/out.json"; }
	else
		[ "$rc_f" -eq 2 ] && [ "$rc_s" -eq 2 ] && [ "$(wc -l <"$name/fast/err")" -eq 1 ] &&
			grep -qF -- "$want" "$name/fast/err" && same_bytes "$name/slow/err" "$name/fast/err"
	fi
	ok $? "$3 (rc $rc_f/$rc_s${err:+: $err})"
}

# The compact print of an unchanged element is the writer's line.
variant plain 1 ''
same_bytes "$SRC" plain/fast/r.json
ok $? "the test's compact form of an element is the writer's shape"
same plain = "unchanged: both forms read the same model"

# --- read alike: the same model ------------------------------------------
variant order 0 'e = {k: e[k] for k in ["cpu", "probe"] + [k for k in e if k not in ("cpu", "probe")]}'
same order = "keys in another order"
variant order2 1 'e["spike_log"] = dict(reversed(list(e["spike_log"].items())))'
same order2 = "spike_log keys in reverse order"
variant extra 0 'e["comment"] = "added by hand"'
same extra = "an extra key"
variant escape 1 '' 't = t.replace("\"timer\"", "\"\\u0074imer\"", 1)'
same escape = "an escaped character in the probe name"
variant minus0 0 '' 't = re.sub(r"(\"stalls\":\s*)0", r"\g<1>-0", t, 1)'
same minus0 = "stalls written as -0"
variant thr0 0 'e["spike_log"]["threshold_ns"] = None; e["spike_log"]["threshold_at_ns"] = None'
same thr0 ok "no threshold (null)"
variant thrz 0 'e["spike_log"]["threshold_ns"] = 0; e["spike_log"]["threshold_at_ns"] = 0'
same thrz ok "threshold 0 instead of null"
variant empty 1 'e["intervals"] = {"n": 0, "count": [], "max_ns": [], "spikes": [], "missed": []}
e["spike_log"].update(logged=0, t_ns=[], latency_ns=[], phase=[])'
same empty ok "no intervals and no spikes logged"
variant utf8 0 'e["probe"] = "t\u00efmer"'
same utf8 ok "a probe name in UTF-8"
variant limits 1 'e["cpu"] = 65535
e["intervals"]["count"][0] = 2**32 - 1
e["intervals"]["spikes"][1] = 2**32 - 1
e["intervals"]["missed"][2] = 2**32 - 1
e["intervals"]["max_ns"][3] = 2**63 - 1
e["spike_log"]["t_ns"][0] = 2**63 - 1
e["spike_log"]["latency_ns"][1] = 2**63 - 1
e["spike_log"]["phase"][2] = 16
e["interval_ns"] = e["stalls"] = e["spike_log"]["total"] = 2**63 - 1'
same limits ok "every value at its limit (UINT32_MAX, INT64_MAX, phase 16, cpu 65535)"
"$PYTHON3" - "$SRC" blanks.json <<'EOF'
import sys
t = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(t.replace(",\n    {", " ,\n\n\t {").replace("\n  ]", " \n  ]"))
EOF
"$RTSOAK" report blanks.json --json blanks.out && same_bytes "$SRC" blanks.out
ok $? "blanks between the elements"

# --- refused alike: the same one-line message ----------------------------
w1='series[1].intervals'
l1='series[1].spike_log'
variant count32 1 'e["intervals"]["count"][5] = 2**32'
same count32 "$w1.count: holds a value that is not a count in range" "a count of 2^32"
variant spikes32 1 'e["intervals"]["spikes"][300] = 2**32'
same spikes32 "$w1.spikes: holds a value that is not a count in range" "spikes of 2^32 (last interval)"
variant missed32 1 'e["intervals"]["missed"][0] = 2**32'
same missed32 "$w1.missed: holds a value that is not a count in range" "missed of 2^32 (first interval)"
variant max63 1 'e["intervals"]["max_ns"][7] = 2**63'
same max63 "not valid JSON at line N, column N: too big integer" "a max_ns of 2^63 (too big for jansson)"
variant digits20 1 'e["intervals"]["max_ns"][7] = 10**19'
same digits20 "too big integer" "a max_ns of 20 digits"
variant digits19 1 'e["intervals"]["max_ns"][7] = 10**19 - 1'
same digits19 "too big integer" "a max_ns of 19 nines (above INT64_MAX)"
variant phase17 1 'e["spike_log"]["phase"][0] = 17'
same phase17 "$l1.phase: holds a value that is not a count in range" "a phase of 17 (RECORDER_MAX_PHASES)"
variant tneg 1 'e["spike_log"]["t_ns"][0] = -1'
same tneg "$l1.t_ns: holds a value that is not a count in range" "a negative t_ns"
variant latneg 0 'e["spike_log"]["latency_ns"][3] = -5'
same latneg "series[0].spike_log.latency_ns: holds a value that is not a count in range" \
	"a negative latency_ns"
variant float 1 'e["intervals"]["max_ns"][2] = 1.5'
same float "$w1.max_ns: holds a value that is not a count in range" "a fraction in max_ns"
variant expo 1 '' 't = re.sub(r"(\"count\":\s*\[)\d+", r"\g<1>1e3", t, 1)'
same expo "$w1.count: holds a value that is not a count in range" "an exponent in count"
variant zero 1 '' 't = re.sub(r"(\"count\":\s*\[)", r"\g<1>0", t, 1)'
same zero "not valid JSON at line N, column N" "a leading zero in count"
variant short 1 'e["intervals"]["missed"].pop()'
same short "$w1.missed: is not an array of the stated length" "missed one value short"
variant long 1 'e["spike_log"]["latency_ns"].append(1)'
same long "$l1.latency_ns: is not an array of the stated length" "latency_ns one value long"
variant nbig 1 'e["intervals"]["n"] += 1'
same nbig "$w1.count: is not an array of the stated length" "n one more than the columns hold"
variant nlimit 1 'e["intervals"]["n"] = 200000001'
same nlimit "$w1: n is above the readers' limit of 200000000 intervals" "n above the limit"
variant logged 1 'e["spike_log"]["logged"] -= 1'
same logged "$l1.t_ns: is not an array of the stated length" "logged one less than the columns hold"
variant cpu 1 'e["cpu"] = 65536'
same cpu "series[1]: cpu is not a CPU number (0..65535)" "cpu 65536"
variant iv0 0 'e["interval_ns"] = 0'
same iv0 "series[0]: interval_ns is 0" "interval_ns 0"
variant nostalls 1 'del e["stalls"]'
same nostalls "series[1].stalls: is missing" "no stalls"
variant strcount 1 'e["intervals"]["count"] = "1,2,3"'
same strcount "$w1.count: is not an array of the stated length" "count a string"
variant longname 0 'e["probe"] = "p" * 256'
same longname "series[0]: probe is longer than the limit of 255 bytes" "a probe name of 256 bytes"
variant dup 1 '' 't = t.replace("\"cpu\"", "\"cpu\":1,\"cpu\"", 1) if "\"cpu\":" in t else t.replace("\"cpu\"", "\"cpu\": 1, \"cpu\"", 1)'
same dup "duplicate object key" "a key twice"
variant notobj 1 'e = [1, 2]'
same notobj "series[1]: is not an object with intervals and spike_log" "an array for a series"
variant nan 1 'e["intervals"]["max_ns"][4] = float("nan")'
same nan "holds NaN or Infinity, which no rtsoak report does" "NaN in max_ns"
# A NaN in the series and an error before it: the NaN is named, as before.
variant nan2 1 'e["intervals"]["max_ns"][4] = float("nan")'
for d in fast slow; do
	sed -i '0,/"count": /s/"count": /"count": 1/' nan2/$d/r.json
done
same nan2 "holds NaN or Infinity, which no rtsoak report does" "NaN in the series after a bad result"
# ... and without the NaN, that file is refused for its result.
sed 's/NaN/1/' nan2/fast/r.json >nan3.json
err=$("$RTSOAK" report nan3.json 2>&1 >/dev/null)
[ $? -eq 2 ] && echo "$err" | grep -qF "results[0]: histogram counts do not add up to count"
ok $? "the same file without the NaN: refused for its result ($err)"

# Truncated inside the second element: cut halfway through its line.
for d in fast slow; do
	mkdir -p trunc/$d
	"$PYTHON3" - plain/$d/r.json trunc/$d/r.json <<'EOF'
import sys
t = open(sys.argv[1]).read()
at = t.rindex('\n    {"probe"')
open(sys.argv[2], "w").write(t[:at + (len(t) - at) // 2])
EOF
done
same trunc "truncated: the JSON ends at line N before it is complete" "cut in a series element"

# --- the writer's shape is read without a jansson tree -------------------
# Four series of 200 000 intervals (13 MB): read by hand, the peak is the
# model, one series' columns and the text not yet read (about 3x the file:
# the text read is given back as the model grows); jansson's tree of one
# series' columns alone is larger than the file (5.5x).
"$PYTHON3" "$top_srcdir/tests/make_huge_report.py" "$DATA/report-small.json" gen.json \
	--cpus 4 --intervals 200000 >/dev/null &&
	"$RTSOAK" report gen.json --json long.json && "$RTSOAK" report long.json --json long-back.json &&
	same_bytes long.json long-back.json
ok $? "a report of 4 CPUs x 200000 intervals in the writer's shape reads back byte for byte"
"$PYTHON3" - long.json long-blanks.json <<'EOF'
import json, sys
out = []
for l in open(sys.argv[1]).read().split("\n"):
    if l.startswith('    {"probe"'):
        tail = "," if l.endswith(",") else ""
        l = "    " + json.dumps(json.loads(l[:len(l) - len(tail)]), separators=(", ", ": ")) + tail
    out.append(l)
open(sys.argv[2], "w").write("\n".join(out))
EOF
"$RTSOAK" report long-blanks.json --json long-back.json && same_bytes long.json long-back.json
ok $? "the same report with blanks (read by jansson) gives the same model"
if [ $asan -eq 1 ] && [ -x /usr/bin/time ]; then
	# Under ASan the peak holds its shadow memory and runtime (about 25 MB
	# for any report) and, by default, its quarantine of freed blocks
	# (256 MB): without the quarantine, what the reader adds to a small
	# report's peak is what it holds.  Measured: 15 MB by hand, 69 MB
	# through jansson, for this 13 MB file.
	lean="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:malloc_context_size=0"
	size_kb=$(($(stat -c %s long.json) / 1024))
	ASAN_OPTIONS=$lean /usr/bin/time -o rss -f %M "$RTSOAK" report "$DATA/report-small.json" >/dev/null 2>&1
	base=$(tail -1 rss)
	ASAN_OPTIONS=$lean /usr/bin/time -o rss -f %M "$RTSOAK" report long.json >/dev/null 2>&1
	rss=$(tail -1 rss)
	ASAN_OPTIONS=$lean /usr/bin/time -o rss -f %M "$RTSOAK" report long-blanks.json >/dev/null 2>&1
	slow=$(tail -1 rss)
	[ $((rss - base)) -le $((4 * size_kb)) ] && [ $((2 * (rss - base))) -le $((slow - base)) ]
	ok $? "writer's shape under ASan: peak RSS over a small report's ($base KiB) +$((rss - base)) KiB <= 4x the file ($size_kb KiB) and under half of jansson's +$((slow - base)) KiB"
elif [ -x /usr/bin/time ]; then
	size_kb=$(($(stat -c %s long.json) / 1024))
	/usr/bin/time -o rss -f %M "$RTSOAK" report long.json >/dev/null 2>&1
	rss=$(tail -1 rss)
	/usr/bin/time -o rss -f %M "$RTSOAK" report long-blanks.json >/dev/null 2>&1
	slow=$(tail -1 rss)
	[ "$rss" -le $((4 * size_kb)) ]
	ok $? "writer's shape: peak RSS $rss KiB <= 4x the file ($size_kb KiB); with blanks (jansson) $slow KiB"
else
	skip "/usr/bin/time is not installed"
fi

# --- errors after the text read was given back ---------------------------
# In the last series, after 10 MB of series were read (and their text given
# back): the whole text is read again for jansson's syntax error (at the
# right line) and for the NaN check.
# late NAME SED: long.json with SED applied to its last series line.
last=$(grep -n '^    {"probe"' long.json | tail -1 | cut -d: -f1)
late() {
	sed "${last}s/$2/" long.json >"$1.json"
	err=$("$RTSOAK" report "$1.json" 2>&1 >/dev/null)
	rc=$?
}
late zero '"max_ns":\[/"max_ns":[0'
[ $rc -eq 2 ] && echo "$err" | grep -qF "zero.json: not valid JSON at line $last, column "
ok $? "a leading zero in the last series: jansson's error at its line $last (rc $rc: $err)"
late nan '"max_ns":\[\(\([0-9]*,\)\{1000\}\)[0-9]*/"max_ns":[\1nan'
[ $rc -eq 2 ] && [ "$err" = "rtsoak: report: nan.json: holds NaN or Infinity, which no rtsoak report does" ]
ok $? "a NaN in the last series: the NaN error (rc $rc: $err)"
late cpu '"cpu":3,/"cpu":65536,'
[ $rc -eq 2 ] && [ "$err" = "rtsoak: report: cpu.json: series[3]: cpu is not a CPU number (0..65535)" ]
ok $? "cpu 65536 in the last series: named (rc $rc: $err)"
done_testing
