#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A 2 s run on every CPU: schema-valid report, per-CPU counts consistent
# with duration / interval and missed, summary and report path on stdout.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema

plan 8
cd "$WORK" || exit 1
out=$("$RTSOAK" run --duration 2s --interval 1ms 2>"$WORK/err")
rc=$?
ok $rc "2 s run exits 0 (stderr: $(head -c 300 "$WORK/err"))"
report=$(ls rtsoak-*.json 2>/dev/null | head -1)
[ -n "$report" ] && [[ "$report" =~ ^rtsoak-[0-9]{8}T[0-9]{6}Z\.json$ ]]
ok $? "default report name is rtsoak-YYYYmmddTHHMMSSZ.json ($report)"
validate "$report"
ok $? "report is schema-valid and its statistics are consistent"
echo "$out" | grep -q "^report: $report$"
ok $? "summary ends with the report path"

n=$(ncpus)
[ "$(jget "$report" 'len([x for x in r["results"] if x["probe"]=="timer"])')" = "$n" ]
ok $? "one timer result per CPU ($n)"
[ "$(jget "$report" 'r["run"]["status"]')" = complete ]
ok $? "status is complete"

# Deadlines that passed = count + missed; it must match duration/interval.
# Slack: the last wake-up can be late on a shared VM, so allow 2 % + 10.
# The net probe (default probes: timer,net) has one send slot per
# --net-interval: each is received, lost, late, pending, or was skipped by a
# sender that woke too late (sender_missed, the family's counter).
check=$("$PYTHON3" - "$report" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
c, dur = r["config"], r["run"]["duration_ns"]
skipped = max((x.get("counters") or {}).get("sender_missed", 0) for x in r["results"])
off = []
for x in r["results"]:
    if x["cpu"] < 0 or x["phase"] != "all":
        continue
    if x["probe"] == "timer":
        slots, got = dur // c["interval_ns"], x["count"] + x["missed"]
    else:
        k = x["counters"]
        slots = dur // c["net_interval_ns"]
        got = x["count"] + k["lost"] + k["late"] + k["pending"] + skipped
    if abs(got - slots) > slots // 50 + 10:
        off.append((x["probe"], x["cpu"], got, slots))
print(off)
EOF
)
[ "$check" = "[]" ]
ok $? "count + missed (timer), count + lost + late + pending + sender_missed (net) match duration / interval on every CPU (off: $check)"

echo "$out" | grep -Eq "^timer +all +[0-9]+"
ok $? "summary has a row per probe x CPU and the all-CPU aggregate"
done_testing
