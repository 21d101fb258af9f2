#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `rtsoak compare A B`: identical runs give no significant difference; a
# copy of a real run with every latency shifted by a known amount is found
# worse (and the reverse better) with that shift inside the interval, max by
# interval maxima and, without series, by order statistics; --fail-if exit
# codes (with evidence, and raw); --json; and the bad-input table (exit 2
# naming the file).  tests/integration/verdict.sh has issue 15's cases.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema

plan 35
cd "$WORK" || exit 1
SHIFT="$PYTHON3 $top_srcdir/tests/shift_report.py"

# 10 s at 1 ms with 50 ms series intervals: ~200 interval maxima per CPU.
"$RTSOAK" run --probes timer --interval 1ms --duration 10s --series-interval 50ms -q -o a.json
ok $? "baseline run"

# The shift: more than the whole spread of the interval maxima, so that A
# and B do not overlap whatever this VM's noise did: the test is about the
# method (a clear shift is found, and the interval holds it), not the VM.
# B = A + delta exactly, so the Hodges-Lehmann estimate is exactly delta.
delta=$("$PYTHON3" - a.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
m = [x for s in r["series"] for x, c in zip(s["intervals"]["max_ns"], s["intervals"]["count"]) if c]
print(max(m) - min(m) + 20000)
PY
)
diag "shift: $delta ns"
$SHIFT a.json b.json "$delta" && validate b.json
ok $? "shifted copy (+$delta ns) is a valid report"

# verdict FILE PROBE CPU PHASE STAT -> prints "verdict method shift lo hi":
# the match's overall verdict, then STAT's (as asked) method, shift and interval
verdict() {
	"$PYTHON3" - "$@" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
cpu = sys.argv[3] if sys.argv[3] == "all" else int(sys.argv[3])
m = [m for m in c["matches"] if m["probe"] == sys.argv[2] and m["cpu"] == cpu and m["phase"] == sys.argv[4]]
assert len(m) == 1, m
m = m[0]
j = [j for j in m["judged"] if j["asked"] == sys.argv[5]][0]
print(m["verdict"], j["method"], j["shift_ns"], j["ci_low_ns"], j["ci_high_ns"])
PY
}
# inside LO X HI
inside() { "$PYTHON3" -c 'import sys; lo, x, hi = map(float, sys.argv[1:]); sys.exit(not lo <= x <= hi)' "$@"; }

"$RTSOAK" compare a.json a.json --json same.json >same.txt
ok $? "compare A A: exit 0"
n_same=$("$PYTHON3" -c 'import json,sys; c=json.load(open(sys.argv[1])); print(sum(m["verdict"] != "same" for m in c["matches"]), len(c["matches"]))' same.json)
[ "${n_same%% *}" = 0 ] && [ "${n_same##* }" -gt 0 ]
ok $? "identical reports: every match is 'same' (differing, matches: $n_same)"
grep -q "nothing in the system snapshots or configurations" same.txt
ok $? "identical reports: nothing differs"

"$RTSOAK" compare a.json b.json --json worse.json >worse.txt
ok $? "compare A A+shift: exit 0 without --fail-if"
read -r v m s lo hi <<<"$(verdict worse.json timer 0 all max)"
diag "cpu 0: $v, max by $m, shift $s ($lo .. $hi)"
[ "$v" = worse ] && [ "$m" = intervals ]
ok $? "shifted: cpu 0 is worse, max judged by interval maxima ($v, $m)"
inside "$lo" "$delta" "$hi"
ok $? "shifted: the known shift $delta ns lies in the 95 % interval [$lo, $hi]"
read -r v m s lo hi <<<"$(verdict worse.json timer all all max)"
[ "$v" = worse ] && inside "$lo" "$delta" "$hi"
ok $? "shifted: the all-CPU aggregate is worse with the shift inside [$lo, $hi] ($v, $m)"
"$PYTHON3" - "$top_srcdir/docs/compare-schema.json" same.json worse.json <<'PY'
import json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
bad = [(f, e.message) for f in sys.argv[2:] for e in v.iter_errors(json.load(open(f)))]
for b in bad[:10]:
    print("# %s: %s" % b)
sys.exit(bool(bad))
PY
ok $? "--json output validates against docs/compare-schema.json"
grep -Eq "^timer cpu 0 \(all\): worse: " worse.txt && grep -Eq "^  max: worse, shift \+[0-9.]+ us" worse.txt
ok $? "text: the verdict lines name result and verdict, then statistic, verdict and shift"
grep -Eq "^  p99\.9 +[0-9.]+ +[0-9.]+ +\+[0-9.]+%$" worse.txt
ok $? "text: the statistics table has A, B and the change in %"

"$RTSOAK" compare b.json a.json --json better.json >/dev/null
read -r v m s lo hi <<<"$(verdict better.json timer 0 all max)"
[ "$v" = better ] && inside "$lo" "-$delta" "$hi"
ok $? "reversed: better, with -$delta inside [$lo, $hi]"

# Without series: order statistics of p99, and the report says so.
# The shift: A's whole range and 1 ms, so that no sample of B is below A's max.
d2=$(jget a.json 'max(x["max_ns"] - x["min_ns"] for x in r["results"]) + 1000000')
$SHIFT a.json nos-a.json 0 --drop-series && $SHIFT a.json nos-b.json "$d2" --drop-series
"$RTSOAK" compare nos-a.json nos-b.json --json nos.json >nos.txt
read -r v m s lo hi <<<"$(verdict nos.json timer 0 all p99)"
[ "$v" = worse ] && [ "$m" = order ] && inside "$lo" "$d2" "$hi"
ok $? "no series: +$d2 ns found worse by order statistics, inside [$lo, $hi] ($v, $m)"
grep -q "take samples as independent" nos.txt
ok $? "no series: the note says what the fallback assumes"
"$RTSOAK" compare nos-a.json nos-a.json --json nos-same.json >/dev/null
read -r v m s lo hi <<<"$(verdict nos-same.json timer 0 all p99)"
[ "$v" = same ]
ok $? "no series, identical: no significant difference ($v)"

# --fail-if
"$RTSOAK" compare a.json b.json --fail-if 'max>+1us' >/dev/null
ok $(($? != 1)) "--fail-if max>+1us on a worse B: exit 1"
"$RTSOAK" compare a.json a.json --fail-if 'max>+1us' --fail-if 'p99.9>+10%' >/dev/null
ok $? "--fail-if on identical reports: exit 0"
"$RTSOAK" compare a.json a.json --fail-if-raw 'p99>-5%' >/dev/null
ok $(($? != 1)) "--fail-if-raw p99>-5% trips unless B improved p99 by 5 %: identical -> exit 1"
"$RTSOAK" compare a.json a.json --fail-if 'p99>+0%' >/dev/null
ok $? "--fail-if p99>+0% with evidence: identical runs never fire it (every interval holds 0) -> exit 0"
# A target of improvement (p99>-X) with evidence trips when the whole
# interval of the change lies above -X.  Identical runs show B did not
# improve by more than the interval's half-width, so whether -5 % trips
# depends on how wide this run's intervals are (a quiet run: narrow, it
# trips).  Take X from the intervals of same.json instead: beyond every
# lower bound trips (exit 1), at the highest lower bound does not (exit 0).
read -r lo_min lo_max <<<"$("$PYTHON3" - same.json <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
lo = [j["ci_low_ns"] for m in c["matches"] for j in m["judged"]
      if j["statistic"] == "p99" and j["ci_low_ns"] is not None]
print(int(min(lo)) - 1000 if lo else "none", int(max(lo)) if lo else "none")
PY
)"
[ "$lo_max" != none ] && [ "$lo_max" -lt 0 ] && "$RTSOAK" compare a.json a.json --fail-if "p99>${lo_max}ns" >/dev/null
ok $? "--fail-if p99>${lo_max}ns (the highest lower bound of identical runs' p99 intervals): no interval lies wholly above it -> exit 0"
"$RTSOAK" compare a.json a.json --fail-if "p99>${lo_min}ns" >/dev/null
ok $(($? != 1)) "--fail-if p99>${lo_min}ns (below every lower bound): identical runs are evidence that B missed that improvement -> exit 1"
"$RTSOAK" compare b.json a.json --fail-if 'p99>-5%' >/dev/null
ok $? "--fail-if p99>-5% holds when B improved by more (exit 0)"
err=$("$RTSOAK" compare a.json a.json --fail-if 'p42>+1%' 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q "unknown statistic 'p42'"
ok $? "--fail-if with an unknown statistic: exit 2 ($err)"
err=$("$RTSOAK" compare a.json a.json --fail-if 'max>+lots' 2>&1)
[ $? -eq 2 ] && [ "$(echo "$err" | wc -l)" -eq 1 ]
ok $? "--fail-if with a bad amount: exit 2, one line ($err)"

# cyclictest --json files (checked-in output of cyclictest 2.40, with and
# without -h) compare against rtsoak reports; unknown statistics are '?'.
CTH=$top_srcdir/tests/data/cyclictest-h.json CTN=$top_srcdir/tests/data/cyclictest-noh.json
"$RTSOAK" compare "$CTH" a.json --json ct.json >ct.txt
ok $? "cyclictest -h file vs rtsoak report: exit 0"
[ "$(jget ct.json '[m["method"] for m in r["matches"] if m["cpu"] == 0][0]')" = order ] &&
	grep -Eq "^  missed +\? +\?" ct.txt
ok $? "cyclictest: judged by order statistics (no series), missed shown as '?'"
err=$("$RTSOAK" compare "$CTN" a.json --fail-if 'p99>+10%' 2>&1 >/dev/null)
[ $? -eq 2 ] && echo "$err" | grep -q "cyclictest-noh.json does not record p99"
ok $? "--fail-if p99 against a cyclictest file without -h: exit 2 ($err)"
err=$("$RTSOAK" report "$CTH" --json x.json 2>&1)
[ $? -eq 2 ] && [ ! -e x.json ]
ok $? "report --json of a cyclictest file: exit 2, nothing written ($err)"

# Bad input: exit 2 with one line naming the file.
bad() { # NAME FILE
	local err rc
	err=$("$RTSOAK" compare a.json "$2" 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 2 ] && [ "$(echo "$err" | wc -l)" -eq 1 ] && echo "$err" | grep -qF "$2"
	ok $? "$1: exit 2, one line naming the file (rc $rc: $err)"
}
bad "missing file" missing.json
echo "not json" >notjson.json
bad "not JSON" notjson.json
head -c 300 a.json >trunc.json
bad "truncated JSON" trunc.json
sed 's/"rtsoak-report\/1"/"rtsoak-report\/9"/' a.json >future.json
bad "unknown schema version" future.json
echo '{"hello": "world"}' >neither.json
bad "neither an rtsoak report nor cyclictest" neither.json
sed '0,/"max_ns": [0-9]*/s//"max_ns": NaN/' a.json >nan.json
bad "NaN-bearing values" nan.json
done_testing
