#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The HTML view: `rtsoak run --html`, `rtsoak report FILE --html OUT` and `rtsoak compare A B
# --html OUT` write one self-contained page whose every number and plotted point is the
# report's (tests/html_check.py checks the page against the JSON: structure, no external
# resources, one plot per probe and kind, histogram buckets, exceedance steps, percentile
# markers, time series vertices and maxima, headline, summary table, warnings, the --on-spike
# section).  Partial,
# empty, imported and huge reports render too; report strings are escaped; unwritable paths
# exit 2.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema

CHECK="$PYTHON3 $top_srcdir/tests/html_check.py"
HUGE="$PYTHON3 $top_srcdir/tests/make_huge_report.py"

# check PAGE REPORT [--compare A B]: html_check.py's problems as diagnostics.
check() {
	local out
	out=$($CHECK "$@" 2>&1)
	local rc=$?
	[ -n "$out" ] && echo "$out" | head -20 | sed 's/^/# /'
	return $rc
}

# no_nonnumbers PAGE: no NaN, Infinity or inf anywhere in the file.
no_nonnumbers() {
	! grep -Eqw 'NaN|nan|Infinity|infinity|inf|-inf' "$1"
}

plan 58
cd "$WORK" || exit 1

# --- a plain run (timer and net: the network split), the page written by the run itself
"$RTSOAK" run --duration 4s --series-interval 100ms -q -o plain.json --html plain-run.html \
	2>/dev/null
ok $? "run --html exits 0"
[ -s plain-run.html ] && validate plain.json
ok $? "run --html wrote the page beside a valid report"
check plain-run.html plain.json
ok $? "plain run: the page matches its report"
grep -q 'data-plot="netsplit" data-probe="net"' plain-run.html &&
	grep -q 'data-plot="timeseries" data-probe="timer"' plain-run.html
ok $? "plain run: network split and time series are there"
"$RTSOAK" report plain.json --html plain.html
ok $? "report --html exits 0"
cmp -s plain.html plain-run.html
ok $? "the page from the JSON is the page the run wrote (byte for byte)"
"$RTSOAK" report plain.json --html - >stdout.html && cmp -s stdout.html plain.html
ok $? "--html - writes the same page to standard output"
[ -z "$(ls -A . | grep '^\.rtsoak-')" ]
ok $? "no temp file left beside the page"

# --- a rotating load schedule: phase bands, per-phase table and plot
"$RTSOAK" run --duration 8s --series-interval 100ms --probes timer --loads cpu:load=30 \
	--schedule rotate --phase-duration 2s -q -o rot.json --html rot.html 2>/dev/null &&
	validate rot.json
ok $? "rotate run with --html"
check rot.html rot.json
ok $? "rotate run: the page matches its report"
grep -q '<rect class="band" style="--h:[0-9]*" data-phase="cpu:load=30"' rot.html &&
	grep -q 'data-plot="phases" data-probe="timer"' rot.html &&
	grep -q '<table class="phase-table" data-probe="timer">' rot.html
ok $? "rotate run: phase bands over time, the per-phase table and plot"
# The headline names the phase of the worst sample.
phase=$(jget rot.json '[p["name"] for p in r["phases"] for s, e in p["occurrences"] for w in [max((x for x in r["results"] if x["phase"] == "all"), key=lambda x: x["max_ns"])] if s <= w["max_at_ns"] < e][0]')
grep -q "<h1 id=\"headline\".*(phase ${phase})</h1>" rot.html
ok $? "the headline names the worst sample's phase ($phase)"

# --- a checkpoint of a run that never finished
"$RTSOAK" run --duration 30s --checkpoint 1s --series-interval 100ms -q -o part.json \
	2>/dev/null &
pid=$!
for _ in $(seq 100); do
	[ -f part.json ] && [ "$(jget part.json 'r["run"]["status"]')" = running ] && break
	sleep 0.1
done
{
	kill -9 $pid
	wait $pid
} 2>/dev/null
# the page shows the checkpoint as rtsoak report reads it: merged with its series log
"$RTSOAK" report part.json --json part-merged.json && "$RTSOAK" report part.json --html part.html &&
	check part.html part-merged.json
ok $? "partial (running) report: renders and matches"
grep -q '<p class="note" id="status-banner" data-status="running">Partial report' part.html
ok $? "partial report: the banner says so"

# --- an empty run: no sample anywhere (made from the plain one), no NaN anywhere
"$PYTHON3" - plain.json empty.json <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
for res in r["results"] + r["aggregates"]:
    res.update(count=0, missed=0, top=[], histogram=[])
    for k in list(res):
        if k.endswith("_ns"):
            res[k] = None
for s in r.get("series", []):
    n = s["intervals"]["n"]
    s["intervals"].update(count=[0] * n, max_ns=[0] * n, spikes=[0] * n, missed=[0] * n)
    s["spike_log"].update(threshold_ns=None, threshold_at_ns=None, total=0, logged=0,
                          overwritten=0, not_logged=0, t_ns=[], latency_ns=[], phase=[])
    if "quantiles" in s:  # issue 30: no samples, no quantiles
        q = s["quantiles"]
        q.update({k: [0] * q["n"] for k in ("count", "p50_ns", "p99_ns", "p99_9_ns")})
r["analysis"] = {"periodicity": [dict(probe=s["probe"], cpu=s["cpu"], source="spike log",
                                      events=0, verdict="no spike threshold was set", patterns=[])
                                 for s in r.get("series", [])],
                 "worst_intervals": [], "top_spikes": []}
json.dump(r, open(sys.argv[2], "w"), indent=1)
EOF
validate empty.json && "$RTSOAK" report empty.json --html empty.html && check empty.html empty.json
ok $? "empty run: valid report, page renders and matches"
grep -q '<h1 id="headline" data-worst-ns="none">No samples' empty.html && ! grep -q '<svg' empty.html
ok $? "empty run: the headline says no samples, and nothing is plotted"
no_nonnumbers empty.html
ok $? "empty run: no NaN, Infinity or inf in the file"

# --- a cyclictest import: unknown statistics are "?"
"$RTSOAK" report "$top_srcdir/tests/data/cyclictest-h.json" --html ct.html &&
	check ct.html "$top_srcdir/tests/data/cyclictest-h.json"
ok $? "cyclictest -h import: renders and matches (histograms from its 1 us buckets)"
[ "$(grep -c '<td data-stat="missed">?</td>' ct.html)" -eq 3 ]
ok $? "cyclictest import: missed is ? in every row"
"$RTSOAK" report "$top_srcdir/tests/data/cyclictest-noh.json" --html ctn.html &&
	check ctn.html "$top_srcdir/tests/data/cyclictest-noh.json"
ok $? "cyclictest import without -h: renders and matches"
[ "$(grep -c '<td data-stat="p99_ns">?</td>' ctn.html)" -eq 3 ] && ! grep -q '<svg' ctn.html &&
	grep -q 'no histogram (cyclictest without -h)' ctn.html
ok $? "without -h: percentiles are ?, no distribution plotted, and the page says why"

# --- report strings are escaped
"$PYTHON3" - plain.json evil.json <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["run"]["warnings"].append('<script>alert(1)</script> & "quoted" \'single\' <b>bold</b>')
r["system"]["cpu_model"] = '<img src=x onerror=alert(2)> & co'
r["tool"]["argv"].append('--loads=cpu:<i>x</i>&y="z"')
json.dump(r, open(sys.argv[2], "w"), indent=1)
EOF
"$RTSOAK" report evil.json --html evil.html && check evil.html evil.json
ok $? "strings with < & \" ': the page parses and shows them as text"
! grep -q -e '<script>alert' -e '<img src=x' -e '<b>bold' -e '<i>x' evil.html &&
	grep -q '&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quoted&quot; &#39;single&#39;' \
		evil.html
ok $? "no markup from the report reaches the page"

# --- the tuning checks: a table near the top, one row per check that did not pass
# rows PAGE: the data-check ids of the checks table's rows, one a line.
rows() {
	sed -n '/<table id="checks-table">/,/<\/table>/p' "$1" | grep -o ' data-check="[^"]*"' |
		sed 's/ data-check="\(.*\)"/\1/'
}
nonpass=$(jget plain.json '"\n".join(c["id"] for c in r["checks"] if c["status"] != "pass")')
npass=$(jget plain.json 'sum(c["status"] == "pass" for c in r["checks"])')
[ -n "$nonpass" ] && [ "$(rows plain.html | sort)" = "$(echo "$nonpass" | sort)" ] &&
	grep -q "<p class=\"cap\" id=\"checks-count\" data-total=\"$(jget plain.json 'len(r["checks"])')\" data-pass=\"$npass\"" plain.html
ok $? "checks: one row per non-pass check ($(echo "$nonpass" | wc -l)), the passes counted ($npass)"
awk '/<h2 id="summary">/ { s = NR } /<h2 id="checks">/ { c = NR } /<svg/ && !p { p = NR }
	END { exit !(s && c && s < c && (!p || c < p)) }' plain.html &&
	[ "$(jget plain.json '[c["status"] for c in r["checks"] if c["status"] != "pass"][0]')" ] &&
	grep -q '<tr class="ck-\(fail\|warn\|unknown\|info\)" data-check="' plain.html
ok $? "checks: after the summary, before the first plot, status as a class"
"$PYTHON3" - plain.json evilck.json <<'EOF2'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["checks"]
c[0].update(status="fail", observed='<script>alert(3)</script> & "q"', why='<b>why</b>',
            fix="echo 'x' > /sys/<i>y</i>", reference="<a href=x>ref</a>")
for x in c[1:]:
    x["status"] = "pass"
json.dump(r, open(sys.argv[2], "w"), indent=1)
EOF2
"$RTSOAK" report evilck.json --html evilck.html && [ "$(rows evilck.html | wc -l)" -eq 1 ] &&
	! grep -q -e '<script>alert(3)' -e '<b>why' -e '<i>y' -e '<a href=x' evilck.html &&
	grep -q '&lt;script&gt;alert(3)&lt;/script&gt; &amp; &quot;q&quot;' evilck.html &&
	grep -q "echo &#39;x&#39; &gt; /sys/&lt;i&gt;y&lt;/i&gt;" evilck.html
ok $? "checks: the report's strings escaped, the one failing check the only row"
"$PYTHON3" - plain.json nock.json <<'EOF2'
import json, sys
r = json.load(open(sys.argv[1]))
del r["checks"]
json.dump(r, open(sys.argv[2], "w"), indent=1)
EOF2
"$RTSOAK" report nock.json --html nock.html && ! grep -q -e 'id="checks' -e 'class="ck-' -e 'checks-table' nock.html &&
	! grep -q 'id="checks' ct.html
ok $? "checks: a report without checks (one from before them, a cyclictest import) has no section"

# --- run --on-spike: its section (the command is the user's text: escaped), every count and the
# first failure as the report has them (html_check.py; the pages above, without --on-spike, have
# no such section).  A threshold every sample passes: spikes skipped, a command that fails.
"$RTSOAK" run --duration 2s --probes timer --spike-threshold 1ns \
	--on-spike 'echo "<script>alert(4)</script> & q" >/dev/null; exit 3' -q -o os.json \
	--html os.html 2>/dev/null
ok $? "run --on-spike --html exits 0"
check os.html os.json
ok $? "on spike: the page matches its report (the command, every count, the first failure)"
! grep -q '<script>alert(4)' os.html &&
	grep -q 'echo &quot;&lt;script&gt;alert(4)&lt;/script&gt; &amp; q&quot;' os.html &&
	[ "$(jget os.json 'r["on_spike"]["failed"] >= 1 and r["on_spike"]["skipped"]["interval"] >= 1')" = true ]
ok $? "on spike: the command escaped; a failure and skipped spikes to show"

# --- unwritable paths
err=$("$RTSOAK" report plain.json --html /nonexistent-dir/x.html 2>&1)
rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q "/nonexistent-dir/x.html"
ok $? "report --html to an unwritable path: exit 2 naming it ($err)"
err=$("$RTSOAK" run --duration 1s -q -o u.json --html /nonexistent-dir/x.html 2>&1)
rc=$?
[ $rc -eq 2 ] && [ ! -e u.json ]
ok $? "run --html to an unwritable path: exit 2 before measuring ($err)"
err=$("$RTSOAK" compare plain.json rot.json --html /nonexistent-dir/x.html 2>&1)
rc=$?
[ $rc -eq 2 ]
ok $? "compare --html to an unwritable path: exit 2 ($err)"

# --- the compare page
"$RTSOAK" compare plain.json rot.json --fail-if 'p99>+10%' --fail-if 'max>+50ms' \
	--html cmp.html --json cmp.json >/dev/null
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ]
ok $? "compare --html exits 0 or 1 ($rc)"
check cmp.html cmp.json --compare plain.json rot.json
ok $? "compare page: verdicts, limits, overlays, warnings and differences match the JSON"
grep -q 'data-plot="compare-histogram" data-probe="timer" data-cpu="all" data-phase="all"' \
	cmp.html && grep -q 'data-plot="compare-exceedance" data-probe="timer" data-cpu="0"' cmp.html
ok $? "compare page: A and B overlaid for all CPUs and per CPU"
"$RTSOAK" compare plain.json plain.json --html - 2>/dev/null >self.html &&
	check self.html <("$RTSOAK" compare plain.json plain.json --json - 2>/dev/null) \
		--compare plain.json plain.json
ok $? "compare --html - to standard output (a report against itself)"
"$RTSOAK" compare "$top_srcdir/tests/data/cyclictest-h.json" plain.json --html ctc.html \
	--json ctc.json >/dev/null 2>&1
rc=$?
{ [ $rc -eq 0 ] || [ $rc -eq 1 ]; } &&
	check ctc.html ctc.json --compare "$top_srcdir/tests/data/cyclictest-h.json" plain.json
ok $? "compare page of a cyclictest file against rtsoak"
no_nonnumbers cmp.html && no_nonnumbers ctc.html
ok $? "compare pages: no NaN or infinity"

# --- a huge report: 64 CPUs x 10 000 intervals
$HUGE plain.json huge.json && validate huge.json
ok $? "make_huge_report.py: a schema-valid report of 64 CPUs x 10000 intervals"
start=$(date +%s%N)
"$RTSOAK" report huge.json --html huge.html
rc=$?
ok $rc "huge report: page written in $((($(date +%s%N) - start) / 1000000)) ms"
size=$(stat -c %s huge.html)
[ "$size" -lt 5000000 ]
ok $? "huge report: page is $size bytes (< 5 MB)"
check huge.html huge.json
ok $? "huge report: every CPU's max is a vertex, every pixel column's maximum is drawn"
# 64 CPUs are more than 16: the 8 worst are drawn, 8 x 10 000 intervals (issue 20).
grep -q 'Down-sampled to [0-9]* points</strong> from 80000 intervals' huge.html
ok $? "huge report: the caption says it was down-sampled, from how many intervals (8 CPUs drawn)"
# More than 16 CPUs (issue 20): the time plot draws the 8 worst CPUs' lines, each with its
# max marker; every CPU is in the per-CPU overview (checked by html_check.py above).
worst=$(jget huge.json '" ".join(str(x["cpu"]) for x in sorted((x for x in r["results"] if x["phase"] == "all"), key=lambda x: (-x["max_ns"], -x["p99_9_ns"], x["cpu"]))[:8])')
[ "$(grep -o '<circle class="mk"[^>]* data-series="[0-9]*" data-role="max"' huge.html |
	sed 's/.*data-series="\([0-9]*\)".*/\1/' | sort -n | tr '\n' ' ')" = \
	"$(echo "$worst" | tr ' ' '\n' | sort -n | tr '\n' ' ')" ]
ok $? "huge report: 8 max markers, on the 8 worst of 64 CPUs ($worst)"

# --- many CPUs (issue 20): 128 CPUs x 3600 intervals, the per-CPU overview
$HUGE plain.json huge128.json --cpus 128 --intervals 3600 && validate huge128.json &&
	"$RTSOAK" report huge128.json --html huge128.html
ok $? "128 CPUs x 3600 intervals: a valid report and its page"
size128=$(stat -c %s huge128.html)
[ "$size128" -lt 5000000 ]
ok $? "128 CPUs: page is $size128 bytes (< 5 MB)"
check huge128.html huge128.json
ok $? "128 CPUs: every overview cell is the report's value or the max of the intervals it covers; the plots draw the 8 worst CPUs"
# The structure, counted here without html_check.py: one overview, one statistics map and one
# time map with a row per CPU, three statistics, at most 120 time columns of one width.
"$PYTHON3" - huge128.html huge128.json <<'EOF2' 2>&1 | sed 's/^/# /'
import json, re, sys
page, r = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
cpus = sorted({x["cpu"] for x in r["results"]})
bad = []
def table(cls):
    m = re.findall(r'<table class="hm %s"[^>]*>.*?</table>' % cls, page, re.S)
    return m
stat, time = table("hm-stat"), table("hm-time")
if len(stat) != 1 or len(time) != 1 or page.count('<h2 id="overview">') != 1:
    bad.append("%d statistics maps, %d time maps" % (len(stat), len(time)))
else:
    rows = re.findall(r'<tr data-cpu="([0-9]+)">(.*?)</tr>', stat[0], re.S)
    if [int(c) for c, _ in rows] != cpus:
        bad.append("statistics rows %d, want one per CPU (%d)" % (len(rows), len(cpus)))
    stats = {tuple(re.findall(r'data-stat="([^"]+)"', row)) for _, row in rows}
    if stats != {("max_ns", "p99_9_ns", "missed")}:
        bad.append("statistics %s" % stats)
    head = re.search(r'<thead>(.*?)</thead>', stat[0]).group(1)
    if re.findall(r"<th[^>]*>([^<]*)</th>", head) != ["CPU", "max (µs)", "p99.9 (µs)", "missed"]:
        bad.append("statistics headings %r" % head)
    ncols = int(re.search(r'data-columns="([0-9]+)"', time[0]).group(1))
    trows = re.findall(r'<tr data-cpu="([0-9]+)">(.*?)</tr>', time[0], re.S)
    if [int(c) for c, _ in trows] != cpus or not 0 < ncols <= 120 or \
            any(row.count("<td") != ncols for _, row in trows):
        bad.append("time map: %d rows, %d columns" % (len(trows), ncols))
    if not all(re.search(r'<div class="hm-legend hm" data-legend="%s" data-steps="8">' % l, page)
               for l in ("max", "p99.9", "missed", "max per interval")):
        bad.append("a legend is missing")
print("\n".join(bad))
sys.exit(bool(bad))
EOF2
ok $? "128 CPUs: one statistics map (max, p99.9, missed) and one time map (<= 120 columns), a row per CPU, legends"
# The summary at 128 CPUs: the all-CPU rows in view (one per phase), every CPU's folded.
"$PYTHON3" - huge128.html huge128.json <<'EOF2' 2>&1 | sed 's/^/# /'
import json, re, sys
page, r = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
top = re.search(r'<table id="summary-all">(.*?)</table>', page, re.S)
rows = re.findall(r'<tr data-probe="([^"]*)" data-cpu="([^"]*)" data-phase="([^"]*)"', top.group(1)) if top else []
want = [("timer", "all", p) for p in [x["name"] for x in r["phases"]] + ["all"]]
fold = re.search(r'<details id="summary-cpus"><summary>Every CPU: ([0-9]+) rows</summary>\n<table id="summary-table">.*?</table>\n</details>', page, re.S)
n = len(r["results"]) + len(r["aggregates"])
print("in view %s, want %s; folded %s rows of %d" % (rows, want, fold and fold.group(1), n))
sys.exit(not (rows == want and fold and int(fold.group(1)) == n))
EOF2
ok $? "128 CPUs: the summary shows the all-CPU rows, every CPU's folded (html_check.py checks their numbers)"
! grep -q -e 'id="summary-all"' -e 'id="summary-cpus"' plain.html
ok $? "2 CPUs: the summary table as before, nothing folded"
# No plot draws 128 lines: each draws the 8 worst CPUs and all CPUs together.
for plot in histogram exceedance timeseries; do
	n=$(sed -n "/<svg[^>]*data-plot=\"$plot\"/,/<\/svg>/p" huge128.html |
		grep -o '<path class="\(ln\|env\)[^"]*"[^>]* data-series="[^"]*"' |
		sed 's/.*data-series="\([^"]*\)".*/\1/' | sort -u | wc -l)
	want=$([ $plot = timeseries ] && echo 8 || echo 9)
	[ "$n" -eq "$want" ] || { diag "$plot: $n lines, want $want"; false; }
done
ok $? "128 CPUs: histogram and exceedance draw 9 lines (8 CPUs, all), the time plot 8"
! grep -q -e 'class="hm' -e 'id="overview"' plain.html && ! grep -q 'class="hm' rot.html
ok $? "2 CPUs: no per-CPU overview, the plots as before"
# The documented count: 16 CPUs are drawn as lines, 17 get the overview.
$HUGE plain.json c16.json --cpus 16 --intervals 2000 && $HUGE plain.json c17.json --cpus 17 --intervals 2000 &&
	"$RTSOAK" report c16.json --html c16.html && "$RTSOAK" report c17.json --html c17.html &&
	check c16.html c16.json && check c17.html c17.json &&
	! grep -q 'class="hm' c16.html && [ "$(grep -c '<h2 id="overview">' c17.html)" -eq 1 ]
ok $? "16 CPUs: no overview, every CPU drawn; 17 CPUs: the overview and the 8 worst drawn"
"$PYTHON3" - huge128.json evil128.json <<'EOF2'
import json, sys
r = json.load(open(sys.argv[1]))
for x in r["results"] + r["aggregates"]:
    x["probe"] = '<b>t</b>&"x'
for s in r["series"]:
    s["probe"] = '<b>t</b>&"x'
for a in r["analysis"].get("periodicity", []):
    a["probe"] = '<b>t</b>&"x'
for a in r["analysis"].get("top_spikes", []) + r["analysis"].get("worst_intervals", []):
    a["probe"] = '<b>t</b>&"x'
json.dump(r, open(sys.argv[2], "w"))
EOF2
"$RTSOAK" report evil128.json --html evil128.html && ! grep -q '<b>t' evil128.html &&
	grep -q '<table class="hm hm-stat" data-probe="&lt;b&gt;t&lt;/b&gt;&amp;&quot;x"' evil128.html
ok $? "128 CPUs: a probe name with markup is escaped in the overview"
# A second probe on 40 of the 128 CPUs: a statistics map and worst CPUs of its own.
"$PYTHON3" - huge128.json two128.json <<'EOF2'
import copy, json, sys
r = json.load(open(sys.argv[1]))
r["results"] += [dict(copy.deepcopy(x), probe="net", max_ns=x["max_ns"] + 7 * x["cpu"])
                 for x in r["results"] if x["cpu"] < 40]
r["aggregates"] += [dict(copy.deepcopy(a), probe="net") for a in r["aggregates"]]
json.dump(r, open(sys.argv[2], "w"))
EOF2
"$RTSOAK" report two128.json --html two128.html && check two128.html two128.json &&
	[ "$(grep -c '<table class="hm hm-stat" data-probe="net" data-cpus="40">' two128.html)" -eq 1 ]
ok $? "128 CPUs, a second probe on 40 of them: its own statistics map (40 rows) and worst CPUs"
# Rows line up even when the series do not follow the results: CPU 5 has a result and no
# series, and the series come in reverse order.  The time map keeps one row per statistics
# row, CPU 5's empty (html_check.py recomputes each row from that CPU's series).
"$PYTHON3" - huge128.json gap128.json <<'EOF2'
import json, sys
r = json.load(open(sys.argv[1]))
r["series"] = [s for s in reversed(r["series"]) if s["cpu"] != 5]
json.dump(r, open(sys.argv[2], "w"))
EOF2
"$RTSOAK" report gap128.json --html gap128.html && check gap128.html gap128.json &&
	"$PYTHON3" - gap128.html <<'EOF2'
import re, sys
page = open(sys.argv[1]).read()
rows = lambda cls: re.findall(r'<tr data-cpu="(\d+)">(?:<th[^>]*>\d+</th>)(.*?)</tr>',
                              re.search(r'<table class="hm %s".*?</table>' % cls, page, re.S).group(0))
stat, time = rows("hm-stat"), rows("hm-time")
five = [cells for cpu, cells in time if cpu == "5"]
sys.exit(not ([c for c, _ in stat] == [c for c, _ in time] and len(five) == 1
              and "data-ns" not in five[0] and five[0].count("<td></td>") > 0))
EOF2
ok $? "128 CPUs, CPU 5 without a series and the series reversed: the time rows follow the statistics rows, CPU 5's empty"
# An imported cyclictest file of 20 threads without -h: "?" for p99.9 and missed, uncoloured.
"$PYTHON3" - "$top_srcdir/tests/data/cyclictest-noh.json" ctn20.json <<'EOF2'
import copy, json, sys
ct = json.load(open(sys.argv[1]))
th = list(ct["thread"].values())
ct["thread"] = {str(i): dict(copy.deepcopy(th[i % len(th)]), cpu=i) for i in range(20)}
ct["num_threads"] = 20
json.dump(ct, open(sys.argv[2], "w"))
EOF2
"$RTSOAK" report ctn20.json --html ctn20.html && check ctn20.html ctn20.json &&
	[ "$(grep -c '<td data-stat="p99_9_ns" title="CPU [0-9]*: not recorded">?</td>' ctn20.html)" -eq 20 ]
ok $? "20 cyclictest threads without -h: the overview says '?' for what the file does not record"
diag "page sizes: plain $(stat -c %s plain.html), rotate $(stat -c %s rot.html), huge $size, 128 CPUs $size128, compare $(stat -c %s cmp.html) bytes"
done_testing
