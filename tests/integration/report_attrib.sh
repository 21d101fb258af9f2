#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The views of the report's attribution section (rtsoak run --trace), on a fixture: a real
# run's report (tests/data/report-spike.json: a 250 ms spike load, periodicity finds it on
# both CPUs) with a synthetic but consistent section added by tests/make_attrib_report.py
# from the report's real spike times.  The text summary's causes line and the patterns'
# culprits, the HTML section, the JSON round trip, the schemas, compare against a copy whose
# causes shifted, and the refusal (exit 2, one line naming the field) of broken sections.
# a.json and b.json are of the shape before causes[].irq_at (which must stay readable);
# c.json (--irqoff) has it: where the timer IRQ came in for every spike of a cause.
. "$(dirname "$0")/lib.sh"
set -o pipefail
require_python_jsonschema

plan 29
cd "$WORK" || exit 1
DATA=$top_srcdir/tests/data
BASE=$DATA/report-spike.json
CHECK="$PYTHON3 $top_srcdir/tests/html_check.py"

"$PYTHON3" "$top_srcdir/tests/make_attrib_report.py" "$BASE" a.json &&
	"$PYTHON3" "$top_srcdir/tests/make_attrib_report.py" "$BASE" b.json --shift &&
	"$PYTHON3" "$top_srcdir/tests/make_attrib_report.py" "$BASE" c.json --irqoff
ok $? "fixtures: the report with an attribution section, one with shifted causes, one with irq_at"

# --- text
"$RTSOAK" report a.json --color never >a.txt
ok $? "rtsoak report of the fixture exits 0"
sed 's/^/# /' a.txt | grep -E "spikes|causes"
want0="  causes: rtsoak-spike/0 (FIFO 99) 81% (11), +2 more; 1 not attributed"
want1="  causes: rtsoak-spike/0 (FIFO 99) 97% (11), silent 3% (1); 1 not attributed"
grep -A1 "^spikes: timer cpu 0:" a.txt | tail -1 | grep -qxF "$want0" &&
	grep -A1 "^spikes: timer cpu 1:" a.txt | tail -1 | grep -qxF "$want1"
ok $? "a causes line under each spikes: line, the causes by share, the rest counted"
[ "$(grep -c '^  causes:' a.txt)" -eq 2 ] &&
	awk 'length($0) > 80 && /^  causes:/ { bad = 1 } END { exit bad }' a.txt
ok $? "causes lines within 80 columns"
# The culprit: the pattern's 12 spikes (the search's own window), 11 of them caused by the
# spike worker in spike_causes, the third on the grid not attributed.
[ "$(grep -c "86 % of them: rtsoak-spike/0 (FIFO 99) preempted, 11 of 12$" a.txt)" -eq 1 ] &&
	[ "$(grep -c "92 % of them: rtsoak-spike/0 (FIFO 99) preempted, 11 of 12$" a.txt)" -eq 1 ]
ok $? "each periodic pattern names its culprit: 11 of its 12 spikes"
"$RTSOAK" report a.json --json a2.json
ok $? "report --json of the fixture"
"$PYTHON3" - a.json a2.json <<'EOF' 2>&1 | sed 's/^/# /'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
bad = []
for pa, pb in zip(a["analysis"]["periodicity"], b["analysis"]["periodicity"]):
    for x, y in zip(pa["patterns"], pb["patterns"]):
        c = y.get("culprit")
        # of: every spike of the pattern; the complete log's pattern has matched of them
        if c != {"cause": "task:rtsoak-spike/0 (FIFO 99)", "spikes": x["matched"] - 1,
                 "of": x["matched"]}:
            bad.append("cpu %d: culprit %s, matched %d" % (pa["cpu"], c, x["matched"]))
        if {k: v for k, v in y.items() if k != "culprit"} != x:
            bad.append("cpu %d: the pattern itself changed" % pa["cpu"])
for x in bad:
    print(x)
sys.exit(1 if bad else 0)
EOF
ok $? "the culprit in the JSON: from spike_causes, of = the pattern's matched spikes"

# irq_at: the function most of a cause's spikes name; 3 of each series' spikes name none
# that counts (user, ?, and __slab_free is second).
"$RTSOAK" report c.json --color never >c.txt
sed 's/^/# /' c.txt | grep -E "causes"
grep -A1 "^spikes: timer cpu 0:" c.txt | tail -1 |
	grep -qxF "  causes: silent 100% (14; timer IRQ in rtsoak_irqoff_hold 11)" &&
	grep -A1 "^spikes: timer cpu 1:" c.txt | tail -1 |
	grep -qxF "  causes: silent 100% (13; timer IRQ in rtsoak_irqoff_hold 10)"
ok $? "the causes line says where the timer IRQ came in for most of a cause's spikes"
# A name from the kernel (or a file) reaches the terminal escaped; one that does not fit the
# 80 columns is left out, never the cause.
"$PYTHON3" - c.json d.json <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
s0, s1 = r["attribution"]["series"]
s0["causes"][0]["irq_at"][0]["function"] = "x\x1b]0;owned\x07y"
s1["causes"][0]["irq_at"][0]["function"] = "f" * 200
json.dump(r, open(sys.argv[2], "w"))
EOF
"$RTSOAK" report d.json --color never >d.txt && ! grep -q $'\x1b\|\x07' d.txt &&
	grep -A1 "^spikes: timer cpu 0:" d.txt | tail -1 |
	grep -qxF '  causes: silent 100% (14; timer IRQ in x\x1b]0;owned\x07y 11)' &&
	grep -A1 "^spikes: timer cpu 1:" d.txt | tail -1 | grep -qxF "  causes: silent 100% (13)"
ok $? "irq_at escaped on the terminal; one too long for the line left out"

# Without attribution nothing of it shows.
"$RTSOAK" report "$BASE" --color never >plain.txt &&
	! grep -qE "^  causes:|preempted" plain.txt && grep -q "^spikes: timer cpu 0:" plain.txt
ok $? "a report without attribution: no causes line, no culprit"

# --- JSON round trip and schema
"$PYTHON3" -c 'import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:]); sys.exit(a["attribution"] != b["attribution"])' a.json a2.json
ok $? "report --json writes the attribution section back unchanged"
"$RTSOAK" report a2.json --json a3.json && same_bytes a2.json a3.json
ok $? "and a second round trip is byte for byte"
validate a.json a2.json b.json
ok $? "the fixtures and the round trip validate against report-schema.json"
"$RTSOAK" report c.json --json c2.json && validate c.json c2.json &&
	"$PYTHON3" -c 'import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:]); sys.exit(a["attribution"] != b["attribution"])' c.json c2.json
ok $? "with irq_at: valid, and written back unchanged"

# --- HTML
"$RTSOAK" report a.json --html a.html && $CHECK a.html a.json 2>&1 | sed 's/^/# /'
ok $? "HTML page with the section passes html_check.py (causes bars against the shares)"
grep -q '<h2 id="why">Why was it late</h2>' a.html &&
	[ "$(grep -c '<path class="cz" data-series="0"' a.html)" -eq 3 ] &&
	[ "$(grep -c '<path class="cz" data-series="1"' a.html)" -eq 2 ]
ok $? "a causes bar per CPU, a segment per cause"
rows=$(grep -o '<tr data-cpu="[0-9]*" data-t-ns=' a.html | wc -l)
[ "$rows" -eq 10 ] && grep -q 'class="split"' a.html &&
	grep -q 'preempted by rtsoak-spike/0 (FIFO 99) for' a.html &&
	grep -q 'rtsoak-spike/0 (FIFO 99, pid 812)' a.html
ok $? "the worst spikes: $rows rows with split strip, verdict and contributors"
# the run queues at each deadline: this CPU's, then the other's (known or said not to be)
[ "$(grep -o '<span class="runq" data-cpu="[01]">CPU [01]: ' a.html | wc -l)" -eq $((rows * 2)) ] &&
	grep -q 'CPU [01]: rtsoak-spike/0 (FIFO 99, pid 812) running, &lt;b&gt;make&lt;/b&gt; (OTHER 0, pid 4242)' a.html &&
	! grep -q '<b>make' a.html &&
	grep -q '<br><span class="runq" data-cpu="1">CPU 1: kworker/1:2 (OTHER 0, pid 91) running</span>' a.html &&
	grep -q '<span class="runq" data-cpu="[01]">CPU [01]: <span class="muted">not known</span></span>' a.html &&
	grep -q 'pid 4242), …</span>' a.html
ok $? "each row's run queues: its CPU's and the other's, names escaped, not known said, truncation shown"
"$PYTHON3" -c 'import json,sys
r = json.load(open(sys.argv[1]))
for s in r["attribution"]["series"]:
    for t in s["top"]:
        for k in ("runnable", "runnable_truncated", "cpus", "cpus_truncated"):
            del t[k]
json.dump(r, open(sys.argv[2], "w"))' a.json old.json &&
	"$RTSOAK" report old.json --html old.html && ! grep -q 'class="runq"' old.html &&
	[ "$(grep -c '<td class="why"><span class="muted">–</span></td></tr>' old.html)" -eq "$rows" ]
ok $? "a report from before the run queues: the column says – on every row"
"$RTSOAK" report c.json --html c.html && $CHECK c.html c.json 2>&1 | sed 's/^/# /' &&
	[ "$(grep -c '13 spikes; timer IRQ in rtsoak_irqoff_hold 10, __slab_free 1</title>' c.html)" -eq 1 ] &&
	"$RTSOAK" report d.json --html d.html && ! grep -q $'\x1b\|\x07' d.html &&
	grep -q '14 spikes; timer IRQ in x.*\]0;owned.*y 11, __slab_free 1</title>' d.html
ok $? "HTML: each causes segment says where the timer IRQ came in, escaped"
"$RTSOAK" report "$BASE" --html plain.html && ! grep -q 'id="why"' plain.html &&
	$CHECK plain.html "$BASE"
ok $? "no section without attribution"

# --- compare
"$RTSOAK" compare a.json b.json --color never >cmp.txt
rc=$?
sed 's/^/# /' cmp.txt | grep causes
[ $rc -le 1 ] &&
	grep -qxF "  causes: rtsoak-spike/0 (FIFO 99) 81% -> 2%, silent 2% -> 81%" cmp.txt &&
	grep -qxF "  causes: rtsoak-spike/0 (FIFO 99) 97% -> 3%, silent 3% -> 97%" cmp.txt
ok $? "compare: the causes whose share moved, per CPU"
"$RTSOAK" compare a.json a.json --color never | grep -c "no share moved by more than 5 points" |
	grep -qx 2
ok $? "compare of a run with itself: no cause moved"
"$RTSOAK" compare a.json "$BASE" --color never | grep -c "^  causes: only A was traced" | grep -qx 2
ok $? "compare with an untraced run says so"
"$RTSOAK" compare a.json b.json --json cmp.json >/dev/null 2>&1
"$PYTHON3" - cmp.json "$top_srcdir/docs/compare-schema.json" <<'EOF' 2>&1 | sed 's/^/# /'
import json, sys, jsonschema
c, s = (json.load(open(p)) for p in sys.argv[1:])
jsonschema.validators.validator_for(s)(s).validate(c)
m = {(x["probe"], x["cpu"]): x for x in c["matches"]}
cs = {x["cause"]: x for x in m[("timer", 0)]["causes"]}
assert "causes" not in m[("timer", "all")], "aggregate with causes"
assert cs["silent"]["shifted"] and cs["task:rtsoak-spike/0 (FIFO 99)"]["shifted"], cs
assert not cs["softirq:TIMER"]["shifted"], cs["softirq:TIMER"]
assert cs["silent"]["share_b"] > 0.8 and cs["silent"]["spikes_b"] == 11, cs["silent"]
EOF
ok $? "compare --json: a causes list per matched series, valid against compare-schema.json"
"$RTSOAK" compare a.json b.json --html cmp.html >/dev/null 2>&1
[ "$(grep -c '<tr data-cause=.*data-shifted="1"' cmp.html)" -eq 4 ] &&
	$CHECK cmp.html cmp.json --compare a.json b.json
ok $? "compare HTML: the causes table, shifts marked"

# --- refusal of broken sections: exit 2, one line, naming the field
# break NAME PYTHON-STATEMENT (on `a`, the attribution of $SRC, a.json unless said; `s`,
# its first series)
n=0
fails=0
SRC=a.json
broken() {
	local name=$1 stmt=$2 want=$3 err rc
	n=$((n + 1))
	"$PYTHON3" - "$SRC" bad$n.json "$stmt" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
a = r["attribution"]
s = a["series"][0]
exec(sys.argv[3])
json.dump(r, open(sys.argv[2], "w"))
EOF
	err=$("$RTSOAK" report bad$n.json 2>&1 >/dev/null)
	rc=$?
	diag "$name: $err"
	if [ $rc -ne 2 ] || [ "$(echo "$err" | wc -l)" -ne 1 ] || ! echo "$err" | grep -qF "$want"; then
		diag "$name: exit $rc, '$err' (want exit 2 naming '$want')"
		fails=$((fails + 1))
	fi
}
broken "index out of range" 's["spike_causes"][2][1] = 7' \
	"attribution.series[0].spike_causes: entry 2: cause index 7 is out of range (3 causes)"
broken "negative index" 's["spike_causes"][0][1] = -1' "attribution.series[0].spike_causes"
broken "share a string" 's["causes"][1]["share"] = "0.2"' "attribution.series[0].causes[1].share"
broken "share above 1" 's["causes"][0]["share"] = 1.5' "attribution.series[0].causes[0].share"
broken "spikes a string" 's["spikes"] = "14"' "attribution.series[0].spikes: is not an integer"
broken "causes unsorted" 's["causes"].reverse(); s["spike_causes"] = [[t, len(s["causes"]) - 1 - k] for t, k in s["spike_causes"]]' \
	"attribution.series[0].causes[1]: causes are not sorted"
broken "counts that do not add up" 's["attributed"] = 12' "attribution.series[0]"
broken "spike_causes short" 's["spike_causes"].pop()' \
	"attribution.series[0].spike_causes: does not hold one entry per attributed spike"
broken "entry not a pair" 's["spike_causes"][0] = [1, 2, 3]' "attribution.series[0].spike_causes"
broken "irq_ns a string" 's["top"][0]["irq_ns"] = "2 us"' "attribution.series[0].top[0].irq_ns"
broken "contributor pid a string" 's["top"][0]["contributors"][0]["pid"] = "812"' \
	"attribution.series[0].top[0].contributors[0].pid"
broken "tracer missing" 'del a["tracer"]' "attribution.tracer: is missing"
broken "cpu out of range" 'a["cpus"][0]["cpu"] = 70000' "attribution.cpus[0].cpu"
broken "attribution not an object" 'r["attribution"] = []' "attribution: is not an object"
broken "repeated entry" 'a["series"].append(dict(s))' "attribution.series[2]: repeats"
broken "duplicate cause" 's["causes"][1]["cause"] = s["causes"][0]["cause"]' "attribution.series[0].causes[1]: cause is listed twice"
# a timeline (reports since it existed) is checked as the views draw it
tl='s["top"][0]["timeline"] = [[0, 10, 0], [20, 10, None]]; s["top"][0]["timeline_truncated"] = False; '
broken "timeline overlapping" "$tl"'s["top"][0]["timeline"][1][0] = 5' \
	"attribution.series[0].top[0].timeline[1]: overlaps the segment before it or lies outside the latency"
broken "timeline past the latency" "$tl"'s["top"][0]["timeline"][1][0] = s["top"][0]["latency_ns"]' \
	"attribution.series[0].top[0].timeline[1]: overlaps"
broken "timeline index beyond the contributors" "$tl"'s["top"][0]["timeline"][0][2] = len(s["top"][0]["contributors"])' \
	"attribution.series[0].top[0].timeline[0]: names a contributor the spike does not list"
broken "timeline entry not a triple" "$tl"'s["top"][0]["timeline"][0] = [0, 10]' \
	"attribution.series[0].top[0].timeline[0]: is not [offset_ns, ns, contributor index or null]"
broken "timeline without its flag" "$tl"'del s["top"][0]["timeline_truncated"]' \
	"attribution.series[0].top[0].timeline_truncated: is missing"
# the other measured CPUs at a spike (top[].cpus, reports since it existed)
oc='s["top"][0]["cpus"] = [{"cpu": 1, "known": True, "runnable_truncated": False, "runnable": [{"pid": 5, "name": "t", "policy": "FIFO", "priority": 50, "running": True}]}]; '
broken "other CPU without known" "$oc"'del s["top"][0]["cpus"][0]["known"]' \
	"attribution.series[0].top[0].cpus[0].known: is missing"
broken "other CPU a negative number" "$oc"'s["top"][0]["cpus"][0]["cpu"] = -1' \
	"attribution.series[0].top[0].cpus[0].cpu: is not a CPU number"
broken "other CPU's task pid a string" "$oc"'s["top"][0]["cpus"][0]["runnable"][0]["pid"] = "5"' \
	"attribution.series[0].top[0].cpus[0].runnable[0].pid: is not an integer"
broken "other CPU without its runnable" "$oc"'del s["top"][0]["cpus"][0]["runnable"]' \
	"attribution.series[0].top[0].cpus[0].runnable: is missing"
broken "cpus_truncated a string" "$oc"'s["top"][0]["cpus_truncated"] = "no"' \
	"attribution.series[0].top[0].cpus_truncated: is not a boolean"
ok $fails "$n broken attribution sections refused: exit 2, one line naming the field"

# irq_at: its counts are checked as the causes' are
n0=$n
fails=0
SRC=c.json
at='s["causes"][0]["irq_at"]'
broken "irq_at not an array" "$at = {}" "attribution.series[0].causes[0].irq_at: is not an array"
broken "irq_at unsorted" "$at.reverse()" \
	"attribution.series[0].causes[0].irq_at[1]: is not sorted by spikes, most first"
broken "irq_at function empty" "$at[1][\"function\"] = \"\"" \
	"attribution.series[0].causes[0].irq_at[1]: function is empty"
broken "irq_at function repeated" "$at[1][\"function\"] = $at[0][\"function\"]" \
	"attribution.series[0].causes[0].irq_at[1]: function is listed twice"
broken "irq_at spikes 0" "$at[1][\"spikes\"] = 0" \
	"attribution.series[0].causes[0].irq_at[1]: spikes is 0"
broken "irq_at spikes a string" "$at[0][\"spikes\"] = \"11\"" \
	"attribution.series[0].causes[0].irq_at[0].spikes"
broken "irq_at more than the cause" "$at[0][\"spikes\"] = 14" \
	"attribution.series[0].causes[0]: irq_at and irq_at_other count more spikes than the cause has"
broken "irq_at_other more than the cause" 's["causes"][0]["irq_at_other"] = 3' \
	"attribution.series[0].causes[0]: irq_at and irq_at_other count more spikes than the cause has"
broken "irq_at_other negative" 's["causes"][0]["irq_at_other"] = -1' \
	"attribution.series[0].causes[0].irq_at_other"
ok $fails "$((n - n0)) broken irq_at refused: exit 2, one line naming the field"
# and at the limit: 14 spikes, 11 + 1 listed, 2 in other functions
"$PYTHON3" - c.json e.json <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["attribution"]["series"][0]["causes"][0]["irq_at_other"] = 2
json.dump(r, open(sys.argv[2], "w"))
EOF
"$RTSOAK" report e.json >/dev/null && validate e.json
ok $? "irq_at and irq_at_other that add up to the cause's spikes are accepted"
done_testing
