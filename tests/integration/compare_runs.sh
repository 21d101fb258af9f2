#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `rtsoak compare A1 A2 ... vs B1 B2 ...`: several runs a side, every
# statistic judged by the runs' values (method "runs").  The runs are copies
# of one real run shifted by known amounts, so each answer is known: a set
# against itself is the same with p 1; B = A + delta (beyond the runs'
# spread) is worse by delta, with delta inside the interval, and the reverse
# better; 3 runs a side cannot reach p < 0.05 and says so; the table holds
# totals and median runs; --fail-if; the JSON names every run; and the bad
# input table (exit 2, one line).
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema

plan 19
cd "$WORK" || exit 1
SHIFT="$PYTHON3 $top_srcdir/tests/shift_report.py"

"$RTSOAK" run --probes timer --interval 1ms --duration 3s --series-interval 100ms -q -o base.json
ok $? "baseline run"

# Four A runs 0, 1, 2, 3 us apart and four B runs the same plus delta, so
# that the Hodges-Lehmann shift of B against A is exactly delta.
# delta: 200 us beyond the base run's largest latency, so that every
# statistic moves by more than itself (past any --min-effect, whatever this
# machine's noise did)
delta=$(jget base.json 'max(x["max_ns"] for x in r["results"]) + 200000')
for i in 1 2 3 4; do
	$SHIFT base.json "a$i.json" $(((i - 1) * 1000)) &&
		$SHIFT base.json "b$i.json" $((delta + (i - 1) * 1000)) || exit 1
done
A="a1.json a2.json a3.json a4.json"
B="b1.json b2.json b3.json b4.json"

# judged FILE STAT -> one line per match: "verdict method units_a units_b shift lo hi p"
judged() {
	"$PYTHON3" - "$@" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
for m in c["matches"]:
    j = [j for j in m["judged"] if j["asked"] == sys.argv[2]][0]
    print(m["verdict"], j["method"], j["units_a"], j["units_b"], j["shift_ns"], j["ci_low_ns"], j["ci_high_ns"], j["p"])
PY
}

# shellcheck disable=SC2086
"$RTSOAK" compare $A vs $A --json same.json >same.txt
ok $? "4 runs vs the same 4: exit 0"
"$PYTHON3" - "$top_srcdir/docs/compare-schema.json" same.json <<'PY'
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
ok $? "--json: valid against docs/compare-schema.json"
bad=$(judged same.json p99 | awk '$1 != "same" || $2 != "runs" || $3 != 4 || $4 != 4 || $8 != 1.0')
[ -z "$bad" ] && [ "$(judged same.json p99 | wc -l)" -gt 0 ]
ok $? "every match same, by 4 vs 4 runs, p 1 (${bad:-all})"
[ "$(jget same.json '[x["file"] for x in r["a"]["runs"]] == "a1.json a2.json a3.json a4.json".split() and r["a"]["file"] == "a1.json"')" = true ]
ok $? "a.runs names the 4 runs in the order given, a.file the first"
grep -q "^   4 runs, and a2.json, a3.json, a4.json$" same.txt && grep -q "A and B are 4 and 4 separate runs" same.txt
ok $? "the text names the runs and says they are judged by the runs' values"

# shellcheck disable=SC2086
"$RTSOAK" compare $A vs $B --json worse.json >worse.txt
ok $? "4 runs vs 4 runs + $delta ns: exit 0"
for stat in p99 max; do
	bad=$(judged worse.json $stat | awk -v d=$delta '$1 != "worse" || $2 != "runs" || $5 != d || $6 > d || $7 < d || $8 >= 0.05')
	[ -z "$bad" ]
	ok $? "$stat: every match worse by runs, shift $delta ns inside the interval, p < 0.05 (${bad:-all})"
done
# shellcheck disable=SC2086
"$RTSOAK" compare $B vs $A --json better.json >/dev/null
[ -z "$(judged better.json max | awk -v d=-$delta '$1 != "better" || $5 != d')" ]
ok $? "reversed: every match better by -$delta ns"

# The table: count the runs' total, p99 the median run's (runs 2 and 3 of 4).
"$PYTHON3" - base.json worse.json "$delta" <<'PY'
import json, sys
base, c = (json.load(open(p)) for p in sys.argv[1:3])
delta = int(sys.argv[3])
bad = []
for m in c["matches"]:
    src = [x for x in base["results" if m["cpu"] != "all" else "aggregates"]
           if x["cpu"] == m["cpu"] and x["probe"] == m["probe"] and x["phase"] == m["phase"]][0]
    st = m["stats"]
    want = {"count": (4 * src["count"], 4 * src["count"]),
            "p99": (src["p99_ns"] + 1500, src["p99_ns"] + delta + 1500)}
    for k, (a, b) in want.items():
        if (st[k]["a"], st[k]["b"]) != (a, b):
            bad.append("%s %s %s: %s, want %s" % (m["probe"], m["cpu"], k, (st[k]["a"], st[k]["b"]), (a, b)))
print("\n".join(bad))
sys.exit(bool(bad))
PY
ok $? "the statistics: count the 4 runs' total, p99 the median run's"

# shellcheck disable=SC2086
"$RTSOAK" compare $A vs $B --fail-if 'max>+1%' >/dev/null
ok $(($? != 1)) "--fail-if max>+1% on 4 worse runs a side: exit 1"
# shellcheck disable=SC2086
"$RTSOAK" compare $A vs $A --fail-if 'max>+0%' >/dev/null
ok $? "--fail-if max>+0% on the same runs: exit 0"

"$RTSOAK" compare a1.json a2.json a3.json vs b1.json b2.json b3.json --json three.json >/dev/null
[ -z "$(judged three.json p99 | awk '$1 != "same" || $3 != 3 || $8 < 0.05')" ] &&
	[ "$(jget three.json 'sorted({j["note"] for m in r["matches"] for j in m["judged"]})')" = '["fewer than 4 runs a side can never reach p < 0.05"]' ]
ok $? "3 runs a side: not significant, and the note says it cannot be"

# A run that measured at another interval: a warning naming it.
"$PYTHON3" - a2.json a2i.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["config"]["interval_ns"] *= 2
json.dump(r, open(sys.argv[2], "w"))
PY
out=$("$RTSOAK" compare a1.json a2i.json vs b1.json b2.json 2>&1)
echo "$out" | grep -q "not comparable: interval_ns differs (A run 2 (a2i.json), A run 1"
ok $? "a run whose interval differs from its side's first: a warning naming it"

err=$("$RTSOAK" compare a1.json a2.json vs 2>&1)
[ $? -eq 2 ] && [ "$(echo "$err" | wc -l)" -eq 1 ] && echo "$err" | grep -q "several runs a side"
ok $? "nothing after vs: exit 2, one line ($err)"
err=$("$RTSOAK" compare a1.json vs a2.json vs b1.json 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q "'vs' given twice"
ok $? "vs twice: exit 2 ($err)"
err=$("$RTSOAK" compare a1.json a2.json vs b1.json missing.json 2>&1)
[ $? -eq 2 ] && [ "$(echo "$err" | wc -l)" -eq 1 ] && echo "$err" | grep -q "missing.json"
ok $? "a missing run: exit 2, one line naming it ($err)"
many=$(for i in $(seq 65); do printf 'a1.json '; done)
# shellcheck disable=SC2086
err=$("$RTSOAK" compare $many vs b1.json 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q "at most 64 runs a side"
ok $? "65 runs a side: exit 2 ($err)"
