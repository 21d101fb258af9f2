#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --schedule rotate: idle, then each load alone, cycling; one result per
# (probe, cpu, phase) plus the "all" union; per-phase system deltas.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema
"$RTSOAK" loads | grep -q "^cpu:" || skip_all "the cpu load is not registered"

plan 12
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

# A phase that never gets its turn (issue 28).  A --duration that cannot give every phase one
# is refused before the run: exit 2, one line naming the length it needs, no report.
err=$("$RTSOAK" run --probes timer --cpus 0 --duration 3s --schedule rotate --phase-duration 2s \
	--loads cpu,cpu:kind=float -q -o short.json 2>&1)
rc=$?
[ $rc -eq 2 ] && [ "$(echo "$err" | wc -l)" -eq 1 ] && echo "$err" | grep -q "at least 6s" &&
	[ ! -e short.json ]
ok $? "rotate: a --duration too short for every phase: exit 2 ($rc), one line, no report ($err)"
err=$("$RTSOAK" run --probes timer --cpus 0 --schedule rotate --loads cpu,cpu:kind=float -q \
	-o short.json 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q "60s (the default)"
ok $? "rotate: the default duration is named when it is the one too short ($err)"
# A run that ends early (--loops, a signal) cannot be foreseen: the phases it never reached are
# a warning in the report and the summary.
"$RTSOAK" run --probes timer --cpus 0 --interval 1ms --loops 300 --schedule rotate \
	--phase-duration 10s --loads cpu,cpu:kind=float -o loops.json >loops.out 2>&1
ok $? "rotate: a --loops run that ends in its first phase exits 0 ($(head -c 300 loops.out))"
w=$(jget loops.json '[w for w in r["run"]["warnings"] if "never ran" in w]')
[ "$w" = '["phase '"'cpu'"' never ran: the run ended before its turn (no samples)", "phase '"'cpu:kind=float'"' never ran: the run ended before its turn (no samples)"]' ] &&
	[ "$(grep -c "^warning: phase '.*' never ran: the run ended before its turn (no samples)$" loops.out)" -eq 2 ]
ok $? "rotate: each phase that never ran is a warning in the report and the summary ($w)"
done_testing
