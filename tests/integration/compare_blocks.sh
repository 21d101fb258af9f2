#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 30: the series keep per-interval p50, p99 and p99.9, and compare
# judges those percentiles per block of them, like max.  Checks: the
# report's series[].quantiles (every sample counted once, in order, valid
# against the schema, both readers and `rtsoak report --json` give them
# back); compare's method "blocks" with spread and drift in the JSON; what
# one run a side cannot separate is "no verdict" in the terminal, the JSON
# and the HTML, and --fail-if finds no evidence in it; a report from before
# the quantiles falls back to order statistics and says so.  No latency is
# asserted: which verdict two real runs get is the calibration's question
# (bench/verdict-calibration.sh), not this test's.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema

plan 16
cd "$WORK" || exit 1

# 3 s at 1 ms with 100 ms series intervals: ~30 quantile intervals a CPU.
"$RTSOAK" run --probes timer --interval 1ms --duration 3s --series-interval 100ms -q -o a.json &&
	"$RTSOAK" run --probes timer --interval 1ms --duration 3s --series-interval 100ms -q -o b.json
ok $? "two runs"
validate a.json b.json
ok $? "the reports validate (schema, and the quantiles' invariants: every sample once, p50 <= p99 <= p99.9)"
n=$(jget a.json '[s["quantiles"]["n"] for s in r["series"]]')
ivl=$(jget a.json 'sorted({s["quantiles"]["interval_ns"] for s in r["series"]})')
[ "$ivl" = '[100000000]' ] && jget a.json 'all(s["quantiles"]["n"] >= 29 and not s["quantiles"]["merged"] for s in r["series"])' | grep -qx true
ok $? "every series has ~30 quantile intervals of 100 ms, none merged (n $n, interval $ivl)"

# Both readers: the fast path (the writer's one-line shape) and jansson's
# (the same document indented), and report --json writes them back.
"$RTSOAK" report a.json --json a-fast.json &&
	"$PYTHON3" -c 'import json,sys; json.dump(json.load(open(sys.argv[1])), open(sys.argv[2], "w"), indent=1)' a.json a-indent.json &&
	"$RTSOAK" report a-indent.json --json a-slow.json
ok $? "report --json of the report and of an indented copy"
same=$("$PYTHON3" - a.json a-fast.json a-slow.json <<'PY'
import json, sys
q = [[s.get("quantiles") for s in json.load(open(f))["series"]] for f in sys.argv[1:]]
print(q[0] == q[1] == q[2] and all(q[0]))
PY
)
[ "$same" = True ]
ok $? "both readers give the quantiles back unchanged"

# compare: p50 and p99 by blocks, max by intervals; JSON valid
"$RTSOAK" compare a.json b.json --json ab.json >ab.txt
rc=$?
[ $rc -eq 0 ] && "$PYTHON3" - "$top_srcdir/docs/compare-schema.json" ab.json <<'PY'
import json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
bad = [e.message for e in v.iter_errors(json.load(open(sys.argv[2])))]
print("\n".join("# " + b for b in bad[:10]))
sys.exit(bool(bad))
PY
ok $? "compare A B: exit $rc, the JSON validates against docs/compare-schema.json"
methods=$(jget ab.json 'sorted({(j["statistic"], j["method"]) for m in r["matches"] for j in m["judged"]})')
[ "$methods" = '[["max", "intervals"], ["p50", "blocks"], ["p99", "blocks"]]' ]
ok $? "p50 and p99 by blocks of per-interval quantiles, max by interval maxima ($methods)"
jget ab.json 'all(("spread_ns" in j and "drift" in j) == (j["p"] is not None) for m in r["matches"] for j in m["judged"])' | grep -qx true
ok $? "each tested statistic has its spread and drift in the JSON"
grep -Eq "blocks' per-interval quantiles of [0-9.]+ s" ab.txt
ok $? "the text names the method"

# No verdict: runs too short for 6 intervals a side (0.4 s at 100 ms).
"$RTSOAK" run --probes timer --interval 1ms --duration 400ms --series-interval 100ms -q -o s1.json &&
	"$RTSOAK" run --probes timer --interval 1ms --duration 400ms --series-interval 100ms -q -o s2.json
"$RTSOAK" compare s1.json s2.json --json nv.json --html nv.html --fail-if 'p99>+0%' >nv.txt
rc=$?
v=$(jget nv.json '[m["verdict"] for m in r["matches"] if m["cpu"] == "all"][0]')
why=$(jget nv.json '[m["reason"] for m in r["matches"] if m["cpu"] == "all"][0]')
[ "$v" = "no verdict" ] && case $why in "no verdict: p99: "*"fewer than 6 a side"*) true ;; *) false ;; esac
ok $? "too few intervals: the verdict is 'no verdict' with the reason ($v: $why)"
jget nv.json '[(j["verdict"], j["p"], j["shift_ns"]) for m in r["matches"] for j in m["judged"] if j["statistic"] == "p99"]' |
	grep -q '"no verdict", null, null'
ok $? "too few intervals: the judged p99 is 'no verdict' with no test (p and shift null)"
grep -Eq '^timer all CPUs \(all\) +no verdict +intervals +p99: [0-9]+ vs [0-9]+ intervals' nv.txt
ok $? "the terminal table says no verdict and why, once"
grep -q 'class="l noverdict" data-col="verdict">no verdict<' nv.html &&
	grep -q '<h1 id="headline"[^>]*>B against A: worse in 0, better in 0, no verdict in' nv.html
ok $? "the HTML verdict cell and headline say no verdict"
out=$("$PYTHON3" "$top_srcdir/tests/html_check.py" nv.html nv.json --compare s1.json s2.json 2>&1)
hrc=$?
[ -n "$out" ] && echo "$out" | head -10 | sed 's/^/# /'
[ $hrc -eq 0 ]
ok $? "the HTML page matches the JSON (verdicts, reasons, shift cells: '-' where no test)"
[ $rc -eq 0 ] && grep -q "without a test of p99: no evidence either way" nv.txt
ok $? "--fail-if on a statistic with no verdict: no evidence, exit 0 (exit $rc)"

# A report from before the quantiles: order statistics, and the note says so.
"$PYTHON3" -c '
import json, sys
for f in sys.argv[1:]:
    r = json.load(open(f))
    for s in r["series"]:
        s.pop("quantiles")
    json.dump(r, open("old-" + f, "w"))' a.json b.json
"$RTSOAK" compare old-a.json old-b.json --json old.json >old.txt
methods=$(jget old.json 'sorted({(j["statistic"], j["method"]) for m in r["matches"] for j in m["judged"]})')
[ "$methods" = '[["max", "intervals"], ["p50", "order"], ["p99", "order"]]' ] &&
	grep -q "no per-interval quantiles" old.txt
ok $? "without quantiles: percentiles by order statistics, and it says so ($methods)"
