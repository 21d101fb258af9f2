#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The net probe on loopback: net, net.stack and net.wakeup per CPU, over IPv4
# and IPv6, with stack + wakeup adding up to the total, nothing lost, exact
# --loops counts, phases, and bad --net-* values rejected before measuring.
# Traffic stays on the loopback interface.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema

# net_check FILE: the invariants of a loopback net report; prints problems.
net_check() {
	"$PYTHON3" - "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
res = {}
for x in r["results"]:
    res[(x["probe"], x["cpu"], x["phase"])] = x
bad = []
keys = {(c, p) for (n, c, p) in res if n.startswith("net")}
if not keys:
    bad.append("no net results")
for c, p in sorted(keys):
    t, s, w = (res.get((n, c, p)) for n in ("net", "net.stack", "net.wakeup"))
    if not (t and s and w):
        bad.append("cpu %d %s: missing one of net, net.stack, net.wakeup" % (c, p))
        continue
    if not t["count"] == s["count"] == w["count"]:
        bad.append("cpu %d %s: counts differ: %d %d %d" % (c, p, t["count"], s["count"], w["count"]))
    if t["count"] == 0:
        continue
    if t["min_ns"] < s["min_ns"] + w["min_ns"]:
        bad.append("cpu %d %s: min(net) %d < min(stack) + min(wakeup) %d" % (c, p, t["min_ns"], s["min_ns"] + w["min_ns"]))
    if t["max_ns"] > s["max_ns"] + w["max_ns"]:
        bad.append("cpu %d %s: max(net) %d > max(stack) + max(wakeup) %d" % (c, p, t["max_ns"], s["max_ns"] + w["max_ns"]))
    if abs(t["mean_ns"] - s["mean_ns"] - w["mean_ns"]) > 1002:
        bad.append("cpu %d %s: mean(net) %d != mean(stack) + mean(wakeup) %d" % (c, p, t["mean_ns"], s["mean_ns"] + w["mean_ns"]))
    if p != "all" and any(x.get("counters") for x in (t, s, w)):
        bad.append("cpu %d %s: counters outside phase all" % (c, p))
    if p == "all":
        k = t.get("counters") or {}
        sent, recv = k.get("sent", -1), k.get("received", -1)
        if sent <= 0 or abs(sent - recv) > 0.02 * sent + 5:
            bad.append("cpu %d: sent %d, received %d" % (c, sent, recv))
        if recv != t["count"]:
            bad.append("cpu %d: received %d but %d samples" % (c, recv, t["count"]))
        for x in (s, w):
            if (x.get("counters") or {}).get("untimestamped", 1):
                bad.append("cpu %d %s: samples without a kernel timestamp" % (c, x["probe"]))
for b in bad:
    print("# " + b)
sys.exit(1 if bad else 0)
EOF
}

# cpus_of FILE PROBE: CPUs with a phase-"all" result of PROBE, as a list.
cpus_of() { jget "$1" "sorted(x['cpu'] for x in r['results'] if x['probe'] == '$2' and x['phase'] == 'all')"; }
expect_cpus=$("$PYTHON3" -c 'import os; print(sorted(os.sched_getaffinity(0)))')

plan 32
cd "$WORK" || exit 1

# --- IPv4, beside the timer probe
"$RTSOAK" run --probes timer,net --duration 2s -q -o v4.json 2>err4
ok $? "timer,net over IPv4 exits 0 ($(head -c 300 err4))"
validate v4.json
ok $? "IPv4 report is schema-valid"
for n in net net.stack net.wakeup; do
	[ "$(cpus_of v4.json $n)" = "$expect_cpus" ]
	ok $? "IPv4: $n result on every CPU $expect_cpus (got $(cpus_of v4.json $n))"
done
net_check v4.json
ok $? "IPv4: stack + wakeup = total on count, min, max and mean; received ~ sent"
[ "$(jget v4.json '[len([x for x in r["results"] if x["probe"] == "timer"]) > 0, r["config"]["net_interval_ns"], r["config"]["net_family"]]')" = '[true, 1000000, null]' ]
ok $? "IPv4: the timer probe ran beside it; config echoes the net defaults"
diag "IPv4 mean stack/wakeup/total per CPU (ns): $(jget v4.json '[(x["cpu"], x["probe"], x["mean_ns"]) for x in r["results"] if x["probe"].startswith("net")]')"

# --- IPv6
if ip -6 addr show dev lo 2>/dev/null | grep -q '::1/128'; then
	"$RTSOAK" run --probes net --net-family 6 --duration 2s -q -o v6.json 2>err6
	ok $? "--net-family 6 exits 0 ($(head -c 300 err6))"
	validate v6.json
	ok $? "IPv6 report is schema-valid"
	[ "$(cpus_of v6.json net.wakeup)" = "$expect_cpus" ]
	ok $? "IPv6: net.wakeup result on every CPU"
	net_check v6.json
	ok $? "IPv6: stack + wakeup = total; received ~ sent"
	[ "$(jget v6.json 'r["config"]["net_family"]')" = 6 ]
	ok $? "IPv6: config echoes net_family 6"
else
	for i in 1 2 3 4 5; do ok 0 "IPv6 # SKIP ::1 is not configured on lo"; done
fi

# --- --loops: exactly N samples per receiver
"$RTSOAK" run --loops 300 --probes net -q -o loops.json 2>errl
ok $? "--loops 300 --probes net exits 0 ($(head -c 300 errl))"
validate loops.json
ok $? "--loops report is schema-valid"
[ "$(jget loops.json 'sorted(set(x["count"] for x in r["results"]))')" = '[300]' ]
ok $? "--loops 300: exactly 300 samples in every net result ($(jget loops.json '[x["count"] for x in r["results"]]'))"
[ "$(jget loops.json 'sorted(set((x["counters"]["lost"], x["counters"]["late"]) for x in r["results"]))')" = '[[0, 0]]' ]
ok $? "--loops 300: nothing lost or late (sender stops when the receiver is done)"

# --- the sender's CPU and priority are honoured and reported
if [ "$(ncpus)" -ge 2 ]; then
	"$RTSOAK" run --probes net --cpus 1 --net-sender-cpu 0 --net-priority 50 --net-interval 500us \
		--duration 1s -q -o sender.json 2>errs
	ok $? "--net-sender-cpu 0 --net-priority 50 exits 0 ($(head -c 300 errs))"
	[ "$(jget sender.json '[(x["counters"]["sender_cpu"], x["counters"]["sender_on_measured_cpu"]) for x in r["results"]][0]')" = '[0, 0]' ]
	ok $? "the counters name sender CPU 0, not a measured one"
	# Every 500 us slot is either sent or, when the sender woke too late
	# for it (a busy or noisy machine), counted as missed: the slots add
	# up to the run's duration / 500 us whatever the machine's noise.
	n=$(jget sender.json '[x["counters"]["sent"] for x in r["results"]][0]')
	m=$(jget sender.json '[x["counters"]["sender_missed"] for x in r["results"]][0]')
	slots=$(jget sender.json 'r["run"]["duration_ns"] // 500000')
	[ "$n" -ge 500 ] && [ $((n + m)) -ge $((slots * 98 / 100 - 5)) ] && [ $((n + m)) -le $((slots * 102 / 100 + 5)) ]
	ok $? "--net-interval 500us: sent + missed = one per 500 us of the run (sent $n + missed $m, $slots slots)"
	! grep -q 'sender runs on measured CPU' errs
	ok $? "no shared-CPU note when the sender has its own CPU"
else
	for i in 1 2 3 4; do ok 0 "sender CPU # SKIP needs 2 CPUs"; done
fi

# --- phases: per-phase results, counters on "all" only
"$RTSOAK" run --probes net --loads cpu --schedule rotate --phase-duration 1s --duration 3s \
	-q -o phases.json 2>errp
ok $? "--schedule rotate with net exits 0 ($(head -c 300 errp))"
validate phases.json && net_check phases.json
ok $? "rotate: schema-valid, stack + wakeup = total in every phase"
[ "$(jget phases.json 'sorted(set(x["phase"] for x in r["results"] if x["probe"] == "net.wakeup"))')" = '["all", "cpu", "idle"]' ]
ok $? "rotate: net.wakeup results for idle, cpu and all"

# --- bad input: exit 2 before measuring
"$RTSOAK" run --probes net --net-family 5 --duration 1s -q -o bad.json 2>errb
rc=$?
[ $rc -eq 2 ] && grep -q "^rtsoak: --net-family: '5' is not one of: 4, 6" errb && [ ! -e bad.json ]
ok $? "--net-family 5: exit 2 with a one-line reason, no report (rc $rc: $(cat errb))"
"$RTSOAK" run --probes net:bogus --duration 1s -q -o bad.json 2>errb
rc=$?
[ $rc -eq 2 ] && grep -q "^rtsoak: --probes: net: 'bogus' is not opt=value" errb
ok $? "net:bogus: exit 2 (rc $rc: $(cat errb))"
"$RTSOAK" run --probes timer --net-interval 500us --duration 1s -q -o bad.json 2>errb
rc=$?
[ $rc -eq 2 ] && [ "$(cat errb)" = "rtsoak: --net-interval: only the net probe uses it, and --probes has no net" ] &&
	[ ! -e bad.json ]
ok $? "a --net-* option without the net probe: exit 2, one line, no report (rc $rc: $(cat errb))"

# --- the options table: net:NAME=V is what --net-NAME V is; both at once is refused
"$RTSOAK" run --probes timer,net:interval=500us:timeout=200ms --cpus 0 --loops 200 -q -o spec.json 2>errs
ok $? "net:interval=500us:timeout=200ms runs ($(head -c 300 errs))"
[ "$(jget spec.json '[r["config"]["net_interval_ns"], r["config"]["net_timeout_ns"],
	r["config"]["probe_options"]["net:interval=500us:timeout=200ms"]["interval"],
	r["config"]["probe_intervals_ns"]["net.wakeup"], r["config"]["probe_intervals_ns"]["timer"]]')" = \
	'[500000, 200000000, 500000, 500000, 1000000]' ]
ok $? "the config echoes the spec's options, and each result's period ($(jget spec.json 'r["config"]["probe_intervals_ns"]'))"
"$RTSOAK" run --probes net:interval=2ms --net-interval 1ms --duration 1s -q -o bad.json 2>errb
rc=$?
[ $rc -eq 2 ] && [ "$(cat errb)" = "rtsoak: --probes: --net-interval: 'net:interval=2ms' sets interval= itself" ] &&
	[ ! -e bad.json ]
ok $? "an option in the spec and its alias: exit 2, neither wins silently (rc $rc: $(cat errb))"
"$RTSOAK" run --probes net:family=6:family=4 --duration 1s -q -o bad.json 2>errb
rc=$?
[ $rc -eq 2 ] && grep -q "^rtsoak: --probes: net: option 'family' given twice" errb
ok $? "an option given twice in a spec: exit 2 (rc $rc: $(cat errb))"
"$RTSOAK" run --probes timer:interval=1ms --duration 1s -q -o bad.json 2>errb
rc=$?
[ $rc -eq 2 ] && [ "$(cat errb)" = "rtsoak: --probes: probe 'timer' takes no options" ]
ok $? "a probe without options refuses them (rc $rc: $(cat errb))"
"$RTSOAK" run --probes net --net-sender-cpu 4000 --duration 1s -q -o bad.json 2>errb
rc=$?
[ $rc -eq 2 ] && grep -q "^rtsoak: --probes: net: sender-cpu: CPU 4000 is not online" errb
ok $? "a sender CPU that is not online: exit 2 before measuring (rc $rc: $(cat errb))"
done_testing
