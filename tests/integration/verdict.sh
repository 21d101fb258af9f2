#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 15's cases with fixtures (tests/data/verdict, from real runs, built by
# tests/make_verdict_fixtures.py which says what each changed), each with its
# new answer:
#  1. a cyclictest file against an rtsoak run whose p99 is 31 % lower but whose
#     tail is in 10 ms bursts: mixed (p99 better, the tail worse), never better;
#  2. an ab report of 3 rounds per arm whose verdict is no significant
#     difference: --fail-if 'p99>+0%' exits 0 (no evidence), --fail-if-raw 1;
#  3. an ab report whose A rounds' p99 climb 169 -> 370 us: the drift warning
#     with its figures;
#  4. net.stack shifted by a significant -0.1 us: same, no practical
#     difference (and better with --min-effect 0).
# Also: --verdict-on, --brief, the text within 80 columns where it can be,
# and the JSON against docs/compare-schema.json (rtsoak-compare/2).
. "$(dirname "$0")/lib.sh"
require_python_jsonschema

plan 30
cd "$WORK" || exit 1
D=$top_srcdir/tests/data/verdict

# verdict FILE PROBE CPU -> the overall verdict of that match (phase all or A)
verdict() { jget "$1" "[m['verdict'] for m in r['matches'] if m['probe'] == '$2' and str(m['cpu']) == '$3'][0]"; }
schema_ok() {
	"$PYTHON3" - "$top_srcdir/docs/compare-schema.json" "$@" <<'PY'
import json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
bad = [(f, e.message) for f in sys.argv[2:] for e in v.iter_errors(json.load(open(f)))]
for b in bad[:10]:
    print("# %s: %s" % b)
sys.exit(bool(bad))
PY
}

# --- case 1: the tail is judged apart from p99
"$RTSOAK" compare "$D/case1-cyclictest.json" "$D/case1-rtsoak.json" --json c1.json >c1.txt
ok $? "case 1: compare cyclictest file vs rtsoak run: exit 0"
v=$(verdict c1.json timer all)
p99=$(jget c1.json "[m['stats']['p99']['change_pct'] for m in r['matches'] if m['cpu'] == 'all'][0]")
mx=$(jget c1.json "[m['stats']['max']['change_pct'] for m in r['matches'] if m['cpu'] == 'all'][0]")
diag "timer all CPUs: $v (p99 $p99 %, max $mx %)"
[ "$v" = mixed ]
ok $? "case 1: timer all CPUs is mixed, not better (p99 $p99 %, max $mx %)"
[ "$(jget c1.json "[(j['statistic'], j['asked'], j['verdict'], j['method']) for m in r['matches'] if m['cpu'] == 'all' for j in m['judged'] if j['asked'] in ('p99', 'max')]")" = \
	'[["p99", "p99", "better", "order"], ["p99.9", "max", "worse", "order"]]' ]
ok $? "case 1: p99 better and the tail (p99.9 for max: no series in a cyclictest file) worse, each by order statistics"
grep -Eq '^timer all CPUs \(all\) +mixed +order +p99 better, p99\.9 \(for max\) worse$' c1.txt
ok $? "case 1: the verdict table names both"
[ "$(grep -n '^verdict on' c1.txt | cut -d: -f1)" -lt "$(grep -n '^statistics' c1.txt | cut -d: -f1)" ]
ok $? "case 1: the verdicts come before the statistics"
grep -q "A and B are single runs:" c1.txt && grep -q "the noise between runs is not in the test" c1.txt
ok $? "case 1: two separate runs: the text says drift is not controlled"
[ "$(jget c1.json 'r["drift_controlled"]')" = false ] && [ "$(jget c1.json 'r["schema"]')" = rtsoak-compare/2 ]
ok $? "case 1: JSON rtsoak-compare/2 with drift_controlled false"
"$RTSOAK" compare "$D/case1-cyclictest.json" "$D/case1-rtsoak.json" --verdict-on p99 --json c1p.json >/dev/null
[ "$(verdict c1p.json timer all)" = better ]
ok $? "case 1: --verdict-on p99 judges p99 alone: better ($(verdict c1p.json timer all))"

# --- case 2: --fail-if needs evidence
"$RTSOAK" compare "$D/ab-noise.json" --fail-if 'p99>+0%' --json c2.json >c2.txt
rc=$?
raw=$(jget c2.json "[m['stats']['p99']['change_pct'] for m in r['matches'] if m['cpu'] == 'all'][0]")
diag "ab-noise: raw p99 change $raw %, verdict $(verdict c2.json timer all)"
[ $rc -eq 0 ] && [ "$(verdict c2.json timer all)" = same ]
ok $? "case 2: ab report, 3 rounds per arm, not significant: --fail-if 'p99>+0%' exits 0 (rc $rc)"
grep -q "no evidence either way; --fail-if-raw compares the plain values" c2.txt &&
	[ "$(jget c2.json 'r["limits"][0]["no_evidence"]')" = 2 ]
ok $? "case 2: the limit says it had no evidence"
"$RTSOAK" compare "$D/ab-noise.json" --fail-if-raw 'p99>+0%' >c2r.txt
rc=$?
[ $rc -eq 1 ] && grep -q '^--fail-if-raw p99>+0%: BROKEN' c2r.txt
ok $? "case 2: --fail-if-raw 'p99>+0%' (B's raw p99 $raw % above A's) exits 1 (rc $rc)"
"$RTSOAK" compare "$D/ab-noise.json" --fail-if 'p99>+0%' --fail-if-raw 'p99>+0%' >/dev/null
ok $(($? != 1)) "case 2: either form breaking is exit 1"

# --- case 3: drift in an arm
"$RTSOAK" compare "$D/ab-drift.json" --json c3.json >c3.txt
ok $? "case 3: ab report with drifting A rounds: exit 0"
grep -Eq '^drift: timer all CPUs \(B vs A\): A rounds p99 169\.0 -> 370\.0 us, rho 1\.00,' c3.txt &&
	grep -q "the verdict may reflect drift, rerun with more rounds" c3.txt
ok $? "case 3: the warning with the figures ($(grep -m1 '^drift' c3.txt))"
[ "$(jget c3.json "[(d['arm'], d['statistic'], d['rounds'], d['first_ns'], d['last_ns'], d['rho']) for m in r['matches'] if m['cpu'] == 'all' for d in m['drift']][0]")" = \
	'["A", "p99", 4, 169000.0, 370000.0, 1.0]' ] && [ "$(jget c3.json 'r["drift_controlled"]')" = true ]
ok $? "case 3: the JSON has the drift test of arm A (p99, 4 rounds, 169 -> 370 us, rho 1)"
! grep -q "^drift: .*B rounds" c3.txt
ok $? "case 3: no drift said of the B rounds (unchanged)"
grep -q "^ab: .*ab-drift.json" c3.txt && grep -q "^B: /proc/sys/vm/stat_interval: 1 -> 1$" c3.txt &&
	grep -q "^timer cpu 1 (B vs A) " c3.txt && ! grep -q "(A)" c3.txt
ok $? "case 3: ab header names the arms by their tweaks, rows say B vs A"

# --- case 4: a tiny significant shift is no practical difference
"$RTSOAK" compare "$D/ab-netstack.json" --json c4.json >c4.txt
ok $? "case 4: ab report with net: exit 0"
[ "$(verdict c4.json net.stack all)" = same ] &&
	[ "$(jget c4.json "[(j['verdict'], j['significant'], round(j['shift_ns'])) for m in r['matches'] if m['probe'] == 'net.stack' and m['cpu'] == 'all' for j in m['judged'] if j['statistic'] == 'p99'][0]")" = '["same", true, -120]' ]
ok $? "case 4: net.stack p99 -0.12 us is significant but same"
grep -Eq '^net\.stack all CPUs \(B vs A\) +same +rounds +no practical difference:' c4.txt
ok $? "case 4: the reason is visible: no practical difference"
[ "$(jget c4.json "sorted({m['method'] for m in r['matches']})")" = '["rounds"]' ]
ok $? "case 4: every result of the net probe is judged by the same method (rounds)"
"$RTSOAK" compare "$D/ab-netstack.json" --min-effect 0 --verdict-on p99 --json c4z.json >/dev/null
[ "$(verdict c4z.json net.stack all)" = better ]
ok $? "case 4: --min-effect 0 --verdict-on p99: the same shift is better"

# --- --brief, bad options, schema
"$RTSOAK" compare "$D/ab-drift.json" --brief --fail-if 'max>+1ms' >brief.txt
[ $? -eq 0 ] && ! grep -q "^statistics" brief.txt && grep -q "^verdict on p99,max" brief.txt &&
	grep -q "^--fail-if max>+1ms: holds" brief.txt && grep -q "^drift:" brief.txt
ok $? "--brief: the verdicts, drift and the limits only ($(wc -l <brief.txt) lines)"
err=$("$RTSOAK" compare "$D/ab-drift.json" --verdict-on mean 2>&1)
[ $? -eq 2 ] && [ "$(echo "$err" | wc -l)" -eq 1 ] && echo "$err" | grep -q "not a statistic compare can judge"
ok $? "--verdict-on mean: exit 2, one line ($err)"
err=$("$RTSOAK" compare "$D/case1-rtsoak.json" 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q "is not an rtsoak ab report"
ok $? "one file that is not an ab report: exit 2 ($err)"
# --- the HTML pages lead with the verdicts
"$RTSOAK" compare "$D/case1-cyclictest.json" "$D/case1-rtsoak.json" --html c1.html >/dev/null
"$PYTHON3" - c1.html <<'PY'
import sys
t = open(sys.argv[1]).read()
v = t.find('id="verdict-table"')
rest = [t.find(x) for x in ('id="side-A"', '<svg', 'id="stats"', 'id="differences"')]
sys.exit(not (0 < v < min(x for x in rest if x > 0) and t.find('data-verdict="mixed"') > v))
PY
ok $? "compare --html: the verdict table (mixed) comes before the files, plots and statistics"
"$RTSOAK" report "$D/ab-drift.json" --html c3.html
"$PYTHON3" - c3.html <<'PY'
import sys
t = open(sys.argv[1]).read()
v = t.find('id="ab-table"')
rest = [t.find(x) for x in ('id="summary"', '<svg', 'id="details"')]
sys.exit(not (0 < v < min(x for x in rest if x > 0)))
PY
ok $? "ab report --html: the A/B verdicts come before the summary and plots"
"$RTSOAK" compare "$D/ab-drift.json" --html c3c.html >/dev/null &&
	grep -q 'data-drift="A">drift: A rounds p99 169.0 → 370.0 µs' c3c.html
ok $? "compare --html of an ab report: the drift warning in the verdict table"
# An ab report written before issue 15 embeds rtsoak-compare/1: still read.
"$RTSOAK" report "$D/ab-v1.json" --html v1.html &&
	"$PYTHON3" - "$D/ab-v1.json" v1.html <<'PY'
import json, re, sys
c = json.load(open(sys.argv[1]))["ab"]["comparison"]
t = open(sys.argv[2]).read()
assert c["schema"] == "rtsoak-compare/1", c["schema"]
tab = t[t.index('id="ab-table"'):]
tab = tab[:tab.index("</table>")]
for m in c["matches"]:
    assert m["verdict"] in tab, m["verdict"]
    assert ("%+.1f µs" % (m["shift_ns"] / 1000)) in tab, m["shift_ns"]
PY
ok $? "an ab report with rtsoak-compare/1 inside: its verdicts and shifts on the page"
schema_ok c1.json c2.json c3.json c4.json
ok $? "every --json output validates against docs/compare-schema.json"
done_testing
