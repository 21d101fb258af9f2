#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `rtsoak report FILE` on a terminal and `--histogram-text OUT`.
#
# The summary: 80 columns even for a 24-hour run's counts and a 59 s stall, every
# cell right under its heading, the report's own numbers, "?" for what a cyclictest
# file does not record and "-" for a CPU without samples, colour only when asked.
# The histogram text: cyclictest's -h layout byte for byte (the golden file was
# checked line by line against the report), counts that add up to the report's,
# the trailer's min/avg/max, and a reader that splits it the way OSADL's plot
# script does.  Unwritable output and a bad --color exit 2.
. "$(dirname "$0")/lib.sh"
set -o pipefail # the checks below print through sed: their status must survive it

plan 35
cd "$WORK" || exit 1
DATA=$top_srcdir/tests/data
SMALL=$DATA/report-small.json
GOLDEN=$DATA/report-small.histogram.golden
ESC=$'\033'

have_jsonschema() { "$PYTHON3" -c 'import jsonschema' 2>/dev/null; }

# table_check TEXT: the summary's table (title, headings, units, rows) within 80
# columns and each row's right-aligned fields ending where the headings' do.  Warning and spike
# lines are one line each so that grep finds them whole; they are not checked.
table_check() {
	"$PYTHON3" - "$1" <<'EOF' 2>&1 | sed 's/^/# /'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
bad = []
head = [i for i, l in enumerate(lines) if l.startswith("probe ")]
if len(head) != 1:
    print("no single heading line"); sys.exit(1)
h = head[0]
ends = lambda l: [m.end() for m in re.finditer(r"\S+", l)]
want = ends(lines[h])
for i, l in enumerate(lines):
    if l.startswith(("warning: ", "spikes: ")) or not l:
        continue
    if len(l) > 80:
        bad.append("line %d is %d columns: %r" % (i + 1, len(l), l))
    # The probe name is left-aligned, every other column right-aligned.
    # The tuning checks' lines (issue 16) are not table rows; their width is checked above.
    if re.match(r"(info|warn|fail|unknown) +[a-z_.]+ |checks: ", l):
        continue
    # The compact layout's count of the CPUs left out (issue 20) is no table row either.
    if l.startswith("not shown: "):
        continue
    if i > h + 1 and not l.startswith(("phase ", "all phases:")) and ends(l)[1:] != want[1:]:
        bad.append("line %d: fields end at %s, headings at %s: %r" % (i + 1, ends(l), want, l))
units = ends(lines[h + 1])
if not set(units) <= set(want):
    bad.append("units row not under the headings: %r" % lines[h + 1])
for b in bad[:10]:
    print(b)
sys.exit(bool(bad))
EOF
}

# --------------------------------------------------------- histogram text --

"$RTSOAK" report "$SMALL" --histogram-text - >hist.txt 2>hist.err
rc=$?
[ $rc -eq 0 ] && same_bytes "$GOLDEN" hist.txt
ok $? "--histogram-text - is the golden file byte for byte (exit $rc)"

"$RTSOAK" report "$SMALL" --histogram-text h.txt >out.txt && same_bytes "$GOLDEN" h.txt && [ ! -s out.txt ] &&
	"$RTSOAK" report "$SMALL" --histogram-text h2.txt --text >summary.txt && same_bytes "$GOLDEN" h2.txt &&
	grep -Eq '^timer +all ' summary.txt
ok $? "--histogram-text FILE writes the same bytes (nothing on stdout; with --text the summary)"

# The counts: per column the rows plus the overflows are the result's count, and
# "# Total:" is what the rows hold (as in cyclictest, overflows not included).
"$PYTHON3" - "$SMALL" hist.txt <<'EOF' 2>&1 | sed 's/^/# /'
import json, sys
r = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().split("\n")
res = sorted((x for x in r["results"] if x["probe"] == "timer" and x["phase"] == "all"),
             key=lambda x: x["cpu"])
rows = [list(map(int, l.split())) for l in lines if l and not l.startswith("#")]
sums = [sum(row[1 + c] for row in rows) for c in range(len(res))]
trailer = {l.split(":")[0]: l.split(":")[1].split() for l in lines if l.startswith("# ") and ":" in l}
total = list(map(int, trailer["# Total"]))
over = list(map(int, trailer["# Histogram Overflows"]))
counts = [x["count"] for x in res]
ok = sums == total and [s + o for s, o in zip(sums, over)] == counts
print("rows %s, Total %s, overflows %s, counts %s" % (sums, total, over, counts))
sys.exit(not ok)
EOF
ok $? "each column's rows plus overflows are the result's count; # Total is the rows' sum"

# The trailer: whole microseconds, truncated as cyclictest truncates; the first and
# last non-empty rows are the min and the max (both exact in rtsoak's result).
"$PYTHON3" - "$SMALL" hist.txt <<'EOF' 2>&1 | sed 's/^/# /'
import json, sys
r = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().split("\n")
res = sorted((x for x in r["results"] if x["probe"] == "timer" and x["phase"] == "all"),
             key=lambda x: x["cpu"])
t = {l.split(":")[0]: [int(v) for v in l.split(":")[1].split()] for l in lines
     if l.startswith(("# Min", "# Avg", "# Max"))}
want = {"# Min Latencies": [x["min_ns"] // 1000 for x in res],
        "# Avg Latencies": [x["mean_ns"] // 1000 for x in res],
        "# Max Latencies": [x["max_ns"] // 1000 for x in res]}
rows = [list(map(int, l.split())) for l in lines if l and not l.startswith("#")]
first = [min(row[0] for row in rows if row[1 + c]) for c in range(len(res))]
last = [max(row[0] for row in rows if row[1 + c]) for c in range(len(res))]
print("trailer %s, want %s; first rows %s, last rows %s" % (t, want, first, last))
sys.exit(not (t == want and first == want["# Min Latencies"] and last == want["# Max Latencies"]))
EOF
ok $? "trailer min/avg/max are the report's, and the first/last non-empty rows are min/max"

# The rows follow the documented rule, recomputed here from the JSON: min and top
# samples on their own rows, every other sample on its bucket's midpoint row.
"$PYTHON3" - "$SMALL" hist.txt <<'EOF' 2>&1 | sed 's/^/# /'
import json, sys
r = json.load(open(sys.argv[1]))
got = [l for l in open(sys.argv[2]).read().split("\n") if l and not l.startswith("#")]
res = sorted((x for x in r["results"] if x["probe"] == "timer" and x["phase"] == "all"),
             key=lambda x: x["cpu"])
nrows = min(10000, max(x["max_ns"] // 1000 for x in res) + 1)
cols = []
for x in res:
    rows, left = [0] * nrows, [[lo, hi, c] for lo, hi, c in x["histogram"]]
    def exact(v):
        for b in left:
            if b[0] <= v < b[1] and b[2]:
                b[2] -= 1
                rows[v // 1000] += 1
                return
    for v in [t["latency_ns"] for t in x["top"]] or [x["max_ns"]]:
        exact(v)
    if x["count"] > max(len(x["top"]), 1):
        exact(x["min_ns"])
    for lo, hi, c in left:
        rows[min(max(lo + (hi - lo) // 2, x["min_ns"]), x["max_ns"]) // 1000] += c
    cols.append(rows)
want = ["%06d " % i + "\t".join("%06d" % c[i] for c in cols) for i in range(nrows)]
diff = [(w, g) for w, g in zip(want, got) if w != g]
for w, g in diff[:5]:
    print("want %r got %r" % (w, g))
sys.exit(bool(diff) or len(want) != len(got))
EOF
ok $? "rows match an independent conversion of the report's buckets"

# OSADL's plot script: the worst case from the "Max Latencies" line (every token
# sorted as a number), the data as all lines but comments and blank ones, spaces
# made tabs, then one `cut -f1,N` file per CPU plotted as x y.
max=$(grep "Max Latencies" hist.txt | tr " " "\n" | sort -n | tail -1 | sed s/^0*//)
grep -v -e "^#" -e "^$" hist.txt | tr " " "\t" >histogram
ncols=$(awk -F'\t' 'NR == 1 { print NF - 1 }' histogram)
bad=0
for i in $(seq 1 "$ncols"); do
	cut -f1,$((i + 1)) histogram >histogram$i
	awk -F'\t' -v want="$((i - 1))" 'NF != 2 || $1 !~ /^[0-9]+$/ || $2 !~ /^[0-9]+$/ || $1 + 0 != NR - 1 { exit 1 }' histogram$i || bad=1
done
want_max=$(jget "$SMALL" 'max(x["max_ns"] for x in r["results"]) // 1000')
[ $bad -eq 0 ] && [ "$ncols" -eq 2 ] && [ "$max" = "$want_max" ]
ok $? "an OSADL-style reader gets $ncols CPU columns of 'us count' rows and max $max us (want $want_max)"

# A cyclictest -h file comes back as cyclictest wrote it: below 131 us a bucket is
# narrower than a row, so each of cyclictest's rows keeps its count.
"$RTSOAK" report "$DATA/cyclictest-h.json" --histogram-text ct.txt 2>err
rc=$?
"$PYTHON3" - "$DATA/cyclictest-h.json" ct.txt <<'EOF' 2>&1 | sed 's/^/# /'
import json, sys
c = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().split("\n")
rows = [list(map(int, l.split())) for l in lines if l and not l.startswith("#")]
th = [t for _, t in sorted(c["thread"].items(), key=lambda kv: kv[1]["cpu"])]
bad = []
for j, t in enumerate(th):
    h = {int(k): v for k, v in t["histogram"].items()}
    for row in rows[:131]:
        if row[1 + j] != h.get(row[0], 0):
            bad.append("cpu %d row %d: %d, cyclictest %d" % (t["cpu"], row[0], row[1 + j], h.get(row[0], 0)))
    if sum(r[1 + j] for r in rows) != t["cycles"]:
        bad.append("cpu %d: rows hold %d, cycles %d" % (t["cpu"], sum(r[1 + j] for r in rows), t["cycles"]))
print("\n".join(bad[:5]))
sys.exit(bool(bad))
EOF
[ $? -eq 0 ] && [ $rc -eq 0 ]
ok $? "a cyclictest -h file: rows below 131 us are cyclictest's own, all samples accounted for"

"$RTSOAK" report "$DATA/cyclictest-noh.json" --histogram-text noh.txt >/dev/null 2>err
rc=$?
diag "$(cat err)"
[ $rc -eq 2 ] && grep -q -- "--histogram-text" err && [ "$(wc -l <err)" -eq 1 ] && [ ! -e noh.txt ]
ok $? "a cyclictest file without -h has no histogram: exit 2, one line, no file"

"$RTSOAK" report "$SMALL" --histogram-text "$WORK/no-such-dir/h.txt" >/dev/null 2>err
rc=$?
[ $rc -eq 2 ] && grep -q "no-such-dir/h.txt" err && [ "$(wc -l <err)" -eq 1 ]
ok $? "--histogram-text to an unwritable path exits 2 naming it ($(cat err))"

# ---------------------------------------------------------------- summary --

"$RTSOAK" report "$SMALL" --color never >small.txt
sed 's/^/# /' small.txt
table_check small.txt
ok $? "summary: within 80 columns, every cell under its heading"

# The rows say what the report says, in us with one decimal.
"$PYTHON3" - "$SMALL" small.txt <<'EOF' 2>&1 | sed 's/^/# /'
import json, sys
r = json.load(open(sys.argv[1]))
rows = {(f[0], f[1]): f for f in (l.split() for l in open(sys.argv[2])) if f and f[0] == "timer"}
bad = []
for x in r["results"] + r["aggregates"]:
    cpu = "all" if x["cpu"] == "all" or x["cpu"] == -1 or x in r["aggregates"] else str(x["cpu"])
    us = lambda k: "%.1f" % (x[k] / 1000.0)
    want = ["timer", cpu, str(x["count"]), us("min_ns"), us("p50_ns"), us("p99_ns"), us("p99_9_ns"),
            us("p99_99_ns"), str(x["missed"]), us("max_ns")]
    if rows.get(("timer", cpu)) != want:
        bad.append("want %s got %s" % (want, rows.get(("timer", cpu))))
print("\n".join(bad))
sys.exit(bool(bad) or len(rows) != len(r["results"]) + len(r["aggregates"]))
EOF
ok $? "summary: count, min, p50, p99, p99.9, p99.99, missed and max are the report's"

# A 24-hour run at 1 us on a bad machine: 10^11 samples per CPU, a 59 s stall.
"$PYTHON3" - "$SMALL" huge.json <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
F, STALL = 50000000, 59 * 10**9
def bucket(v):  # the log-linear bucket holding v (histogram.h)
    m = v.bit_length() - 1
    lo = (v >> (m - 7)) << (m - 7)
    return lo, lo + (1 << (m - 7))
worst = max(y["max_ns"] for y in r["results"])
for x in r["results"] + r["aggregates"]:
    x["count"] *= F
    x["missed"] *= F
    x["histogram"] = [[lo, hi, c * F] for lo, hi, c in x["histogram"]]
    if x["max_ns"] == worst:
        x["histogram"][-1][2] -= 1
        lo, hi = bucket(STALL)
        x["histogram"].append([lo, hi, 1])
        x["max_ns"] = x["p99_999_ns"] = x["top"][0]["latency_ns"] = STALL
        x["p99_99_ns"] = 1234567890
# A series interval holds at most 2^32 samples: spread the run over 86400 of them
# (1 s each), the stall in the last.
for s in r["series"]:
    res = [x for x in r["results"] if x["cpu"] == s["cpu"] and x["phase"] == "all"][0]
    iv, n = s["intervals"], 86400
    per = lambda total: [total // n + (i < total % n) for i in range(n)]
    iv["count"], iv["missed"] = per(res["count"]), per(res["missed"])
    iv["max_ns"] = [res["p99_ns"]] * (n - 1) + [res["max_ns"]]
    iv["spikes"] = [0] * (n - 1) + [s["spike_log"]["total"]]
    iv["n"] = n
r["run"]["duration_ns"] = 86400 * 10**9
json.dump(r, open(sys.argv[2], "w"), indent=1)
EOF
if have_jsonschema; then
	validate huge.json
	ok $? "the huge copy (10^11 samples per CPU, max 59 s) is a valid report"
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - the huge copy is a valid report # SKIP python3-jsonschema is not installed"
fi
"$RTSOAK" report huge.json --color never >huge.txt
sed 's/^/# /' huge.txt
table_check huge.txt
ok $? "huge values: within 80 columns, every cell under its heading"
awk '$1 == "timer" && $2 == "all" && $3 == "200G" && $9 == "300M" && $10 == "5.9e+07" && $8 == "1234568" { found = 1 } END { exit !found }' huge.txt
ok $? "huge values: compact counts (200G, 300M) and us with an exponent for 59 s (5.9e+07)"

# Every probe's name (net.wakeup is the longest) and phase blocks, from a real run.
if [ "$(id -u)" -eq 0 ]; then
	"$RTSOAK" run --probes timer,net --loads cpu --schedule rotate --phase-duration 1s \
		--duration 3s -q -o phases.json 2>/dev/null &&
		"$RTSOAK" report phases.json >phases.txt
	rc=$?
	sed 's/^/# /' phases.txt
	[ $rc -eq 0 ] && grep -q "^net.wakeup " phases.txt && grep -q "^phase " phases.txt &&
		table_check phases.txt
	ok $? "every probe, phases: within 80 columns, every cell under its heading"
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - every probe, phases: within 80 columns # SKIP needs root for SCHED_FIFO"
fi

"$RTSOAK" report "$DATA/cyclictest-noh.json" >noh.txt 2>/dev/null
sed 's/^/# /' noh.txt
table_check noh.txt &&
	awk '$1 == "timer" && !($5 == "?" && $6 == "?" && $7 == "?" && $8 == "?" && $9 == "?" && $10 ~ /^[0-9.]+$/) { bad = 1 } END { exit bad }' noh.txt
ok $? "cyclictest file without -h: '?' for percentiles and missed, under their headings"

"$RTSOAK" report "$DATA/cyclictest-nan.json" >nan.txt 2>/dev/null
table_check nan.txt &&
	awk '$1 == "timer" && $2 == "1" { n++; if (!($3 == "0" && $4 == "-" && $8 == "-" && $10 == "-")) bad = 1 } END { exit bad || n != 1 }' nan.txt
ok $? "a CPU without samples: '-' for its statistics, under their headings"

# -------------------------------------------------------------- many CPUs --

# Above 16 measured CPUs (issue 20): per probe and phase the 8 worst CPUs (by max, then
# p99.9), worst first, a "not shown" line counting the others, and the aggregate.
"$PYTHON3" "$top_srcdir/tests/make_huge_report.py" "$SMALL" huge128.json --cpus 128 --intervals 3600 &&
	"$RTSOAK" report huge128.json --color never >h128.txt
ok $? "128 CPUs: the summary prints"
sed 's/^/# /' h128.txt | head -40
table_check h128.txt
ok $? "128 CPUs: within 80 columns, every cell under its heading"
"$PYTHON3" - huge128.json h128.txt <<'EOF'
import json, re, sys
r = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().split("\n")
bad, blocks, cur = [], [], None
for l in lines:
    if l.startswith(("phase ", "all phases:")):
        cur = {"phase": l[6:-1] if l.startswith("phase ") else "all", "rows": [], "hidden": [], "agg": 0}
        blocks.append(cur)
    elif cur and re.match(r"timer +[0-9]+ ", l):
        cur["rows"].append(l.split())
    elif cur and re.match(r"timer +all ", l):
        cur["agg"] += 1
    elif cur and l.startswith("not shown: ") and " timer CPUs " in l:
        cur["hidden"].append(l)
phases = [p["name"] for p in r["phases"]] + ["all"]
if [b["phase"] for b in blocks] != phases:
    bad.append("blocks %s, want %s" % ([b["phase"] for b in blocks], phases))
for b in blocks:
    res = [x for x in r["results"] if x["phase"] == b["phase"]]
    worst = sorted(res, key=lambda x: (-x["max_ns"], -x["p99_9_ns"], x["cpu"]))
    got = [int(f[1]) for f in b["rows"]]
    if got != [x["cpu"] for x in worst[:8]]:
        bad.append("%s: rows for CPUs %s, the 8 worst are %s" % (b["phase"], got, [x["cpu"] for x in worst[:8]]))
    for f in b["rows"]:
        x = [y for y in res if y["cpu"] == int(f[1])][0]
        if f[9] != "%.1f" % (x["max_ns"] / 1000) or f[6] != "%.1f" % (x["p99_9_ns"] / 1000):
            bad.append("%s CPU %s: max %s p99.9 %s, the report's %d %d" % (b["phase"], f[1], f[9], f[6], x["max_ns"], x["p99_9_ns"]))
    m = [re.match(r"not shown: ([0-9]+) timer CPUs \(max <= ([0-9.]+) us\); rtsoak report --cpu-rows all$", h) for h in b["hidden"]]
    if len(m) != 1 or not m[0] or int(m[0].group(1)) != len(res) - 8 or \
            m[0].group(2) != "%.1f" % (worst[8]["max_ns"] / 1000):
        bad.append("%s: not-shown lines %s, want %d of %d, max <= %.1f" % (b["phase"], b["hidden"], len(res) - 8, len(res), worst[8]["max_ns"] / 1000))
    if b["agg"] != 1:
        bad.append("%s: %d aggregate rows" % (b["phase"], b["agg"]))
print("\n".join(bad[:10]))
sys.exit(bool(bad))
EOF
ok $? "128 CPUs: per phase the aggregate, exactly the 8 worst CPUs with their numbers, and '120 timer CPUs not shown', their max, the command"
# Spike lines: the CPUs shown and the one with a recurring pattern (CPU 3), the rest counted.
shown=$(grep -c '^spikes: timer cpu ' h128.txt)
grep -q '^spikes: timer cpu 3: .*every 60.000 s' h128.txt &&
	grep -q "^not shown: spikes of $((128 - shown)) series, none recurring; rtsoak report --cpu-rows all$" h128.txt &&
	[ "$shown" -le 9 ]
ok $? "128 CPUs: $shown spike lines (the worst CPUs and the periodic one), the others counted"
"$RTSOAK" report huge128.json --color never --cpu-rows all >h128-all.txt &&
	[ "$(grep -Ec '^timer +[0-9]+ ' h128-all.txt)" -eq $((128 * 3)) ] && ! grep -q '^not shown' h128-all.txt &&
	[ "$(grep -c '^spikes: timer cpu ' h128-all.txt)" -eq 128 ] && table_check h128-all.txt
ok $? "--cpu-rows all: every CPU of every phase (384 rows), every spike line, nothing 'not shown'"
"$RTSOAK" report "$SMALL" --color never --cpu-rows all >small-all.txt && cmp -s small.txt small-all.txt &&
	"$RTSOAK" report "$SMALL" --color never --cpu-rows auto | cmp -s small.txt -
ok $? "2 CPUs: the summary is unchanged (auto and --cpu-rows all print the same bytes)"
"$RTSOAK" report "$SMALL" --color never --cpu-rows worst >small-worst.txt &&
	[ "$(awk '$1 == "timer" { print $2 }' small-worst.txt | tr '\n' ' ')" = "1 0 all " ] &&
	! grep -q '^not shown' small-worst.txt
ok $? "--cpu-rows worst on 2 CPUs: worst first (CPU 1 has the larger max), nothing to leave out"
"$PYTHON3" "$top_srcdir/tests/make_huge_report.py" "$SMALL" c16.json --cpus 16 --intervals 2000 &&
	"$PYTHON3" "$top_srcdir/tests/make_huge_report.py" "$SMALL" c17.json --cpus 17 --intervals 2000 &&
	"$RTSOAK" report c16.json --color never >c16.txt &&
	"$RTSOAK" report c16.json --color never --cpu-rows all | cmp -s c16.txt - &&
	[ "$(grep -Ec '^timer +[0-9]+ ' c16.txt)" -eq $((16 * 3)) ] &&
	"$RTSOAK" report c17.json --color never >c17.txt &&
	[ "$(grep -c '^not shown: 9 timer CPUs (max <= ' c17.txt)" -eq 3 ]
ok $? "the documented count: 16 CPUs print every row, 17 the 8 worst ('9 timer CPUs not shown' per phase)"
"$RTSOAK" report "$SMALL" --cpu-rows some >/dev/null 2>err
rc=$?
"$RTSOAK" report "$SMALL" "$SMALL" --cpu-rows all >/dev/null 2>err2
rc2=$?
[ $rc -eq 2 ] && grep -q "some" err && [ "$(wc -l <err)" -eq 1 ] && [ $rc2 -eq 2 ] &&
	grep -q -- "--cpu-rows" err2
ok $? "--cpu-rows some exits 2 naming it ($(cat err)); with several files exits 2 ($(cat err2))"

# ----------------------------------------------------------------- colour --

"$RTSOAK" report "$SMALL" --color always >always.txt
grep -q "$ESC\[" always.txt
ok $? "--color always: ANSI sequences"
sed "s/$ESC\[[0-9;]*m//g" always.txt | cmp -s - small.txt
ok $? "--color always is --color never plus escapes, nothing moved"
! grep -q "$ESC" small.txt && ! grep -q "$ESC" huge.txt
ok $? "--color never: no escape byte"
"$RTSOAK" report "$SMALL" --color bogus >/dev/null 2>err
rc=$?
[ $rc -eq 2 ] && grep -q "bogus" err
ok $? "--color bogus exits 2 naming the value ($(cat err))"

if command -v script >/dev/null; then
	NO_COLOR= script -qec "'$RTSOAK' report '$SMALL'" tty.txt >/dev/null 2>&1
	grep -q "$ESC\[" tty.txt
	ok $? "auto on a terminal: colour"
	NO_COLOR=1 script -qec "'$RTSOAK' report '$SMALL'" tty-nc.txt >/dev/null 2>&1
	! grep -q "$ESC" tty-nc.txt && grep -q "^timer" tty-nc.txt
	ok $? "auto on a terminal with NO_COLOR=1: no escape byte"
else
	for what in "auto on a terminal: colour" "auto with NO_COLOR=1: no escape byte"; do
		tap_n=$((tap_n + 1))
		echo "ok $tap_n - $what # SKIP script (util-linux) is missing: no pseudo-terminal"
	done
fi
NO_COLOR=1 "$RTSOAK" report "$SMALL" >nc.txt
! grep -q "$ESC" nc.txt
ok $? "NO_COLOR=1, not a terminal: no escape byte"

# ---------------------------------------------------------------- compare --

"$RTSOAK" compare "$SMALL" huge.json --color never >cmp.txt
rc=$?
sed 's/^/# /' cmp.txt
awk 'length($0) > 80 && !/^(A|B): / && !/^warning: / { print "# " length($0) ": " $0; bad = 1 } END { exit bad }' cmp.txt
[ $? -eq 0 ] && [ $rc -eq 0 ] && ! grep -q "$ESC" cmp.txt
ok $? "compare: within 80 columns (but file names and warnings), no escape byte with --color never"
# B = A + 50 us: worse everywhere.
"$PYTHON3" "$top_srcdir/tests/shift_report.py" "$SMALL" shifted.json 50000
"$RTSOAK" compare "$SMALL" shifted.json --color never >cmp-never.txt
"$RTSOAK" compare "$SMALL" shifted.json --color always >cmp-always.txt
grep -q "$ESC\[31mworse" cmp-always.txt && sed "s/$ESC\[[0-9;]*m//g" cmp-always.txt | cmp -s - cmp-never.txt &&
	grep -q "^timer cpu 0 (all)  *worse  *order  *p99 worse" cmp-never.txt
ok $? "compare --color always: 'worse' in red, and nothing else changes"

done_testing
