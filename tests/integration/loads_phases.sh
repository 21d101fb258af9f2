#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --schedule rotate: idle, then each load alone, cycling; one result per
# (probe, cpu, phase) plus the "all" union; per-phase system deltas.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema
"$RTSOAK" loads | grep -q "^cpu:" || skip_all "the cpu load is not registered"

plan 8
cd "$WORK" || exit 1
n=$(ncpus)
rtsoak_tagged run --duration 4s --schedule rotate --phase-duration 1s \
	--loads cpu:load=100,cpu:kind=float -q -o rot.json 2>err
ok $? "rotate run exits 0 ($(head -c 300 err))"
validate rot.json
ok $? "report is schema-valid"
[ "$(jget rot.json '[p["name"] for p in r["phases"]]')" = '["idle", "cpu:load=100", "cpu:kind=float"]' ]
ok $? "phases are idle, then each load alone, named by spec"
[ "$(jget rot.json '[len(p["occurrences"]) for p in r["phases"]]')" = '[2, 1, 1]' ]
ok $? "a 4 s run of 1 s phases cycles back to idle ($(jget rot.json '[p["occurrences"] for p in r["phases"]]'))"
[ "$(jget rot.json 'sorted(set((x["cpu"], x["phase"]) for x in r["results"])) == sorted((c, p) for c in range('"$n"') for p in ["idle", "cpu:load=100", "cpu:kind=float", "all"])')" = true ]
ok $? "one result per (cpu, phase) and the union 'all'"
[ "$(jget rot.json 'all(x["count"] == sum(y["count"] for y in r["results"] if y["probe"] == x["probe"] and y["cpu"] == x["cpu"] and y["phase"] != "all") for x in r["results"] if x["phase"] == "all")')" = true ]
ok $? "the 'all' result of each CPU is the sum of its phases"
# The busy phase left each CPU (the loads run on all) almost no idle time:
# under a quarter of the phase, where deltas counted from the start of the
# run would carry the idle phase's idle time too.  Not compared with the
# idle phase itself: under make -j2 another test may keep the CPUs busy
# during it (this run cannot tell), so its idle time says nothing reliable.
idle=$(jget rot.json '[(p["name"], sum(b - a for a, b in p["occurrences"]), p["system"]["cpu_time_ns"]["idle"]) for p in r["phases"]]')
[ "$(jget rot.json '[all(i < sum(b - a for a, b in p["occurrences"]) / 4 for i in p["system"]["cpu_time_ns"]["idle"]) for p in r["phases"] if p["name"] == "cpu:load=100"]')" = '[true]' ]
ok $? "per-phase system deltas: the cpu:load=100 phase idles under a quarter of its length on every CPU (phase, ns, idle ns per CPU: $idle)"
[ -z "$(tagged_pids)" ]
ok $? "no process of the run left"
done_testing
