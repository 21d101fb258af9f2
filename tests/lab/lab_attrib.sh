#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# lab_attrib.sh (in the lab guest, check_lab.sh): --trace names the cause
# the lab injected, for (nearly) every spike, not only the worst:
#   - IRQs held off in rtsoak_irqoff_hold (--trace-stacks): the timer IRQ
#     came in rtsoak_irqoff_hold, the latency is IRQ latency;
#   - preemption held off: thread latency, the module's thread by name,
#     pid, policy and priority;
#   - a spike load's bursts (FIFO 96 above the FIFO 95 probe): its worker.
# Periods incommensurate with the probe's 1 ms (docs/LAB.md): 10137 us walks
# the holds through the interval 137 us a period, 37.013 ms the bursts by
# 13 us (134 bursts of 200 us walk 1.7 times through the interval: each
# pass starts ~12 of them in the 150 us before a deadline, which then waits
# over 50 us).
. "$(dirname "$0")/lib.sh"
plan 9
cd "$WORK" || exit 1
lab_module

# share PY_EXPR FILE: the share of the timer's spikes for which PY_EXPR (on
# the attribution series s and its causes c) holds, as "k of n".
attrib() {
	"$PYTHON3" - "$@" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = [s for s in r["attribution"]["series"] if s["probe"] == "timer" and s["phase"] == "all"][0]
causes = s["causes"]
mode = sys.argv[2]
n, attributed = s["spikes"], s["attributed"]
bad = []
if n < 10:
    bad.append("only %d spikes" % n)
if attributed != n:
    bad.append("%d of %d spikes attributed" % (attributed, n))
if mode == "irq":
    # every kept spike: mostly IRQ latency, no more than the hold (200 us)
    # and its entry; the rest is the wake-up, slowed by the stacks' cost
    for t in s["top"]:
        if (t["irq_at"] != "rtsoak_irqoff_hold" or t["irq_ns"] < 0.5 * t["latency_ns"]
                or t["irq_ns"] > 215000):
            bad.append("top spike at %d: irq_at %s, irq %d of %d ns"
                       % (t["t_ns"], t["irq_at"], t["irq_ns"], t["latency_ns"]))
    named = sum(f["spikes"] for c in causes for f in c.get("irq_at", [])
                if f["function"] == "rtsoak_irqoff_hold")
    what = "the timer IRQ came in rtsoak_irqoff_hold"
elif mode == "preempt":
    for t in s["top"]:
        if t["thread_ns"] < 0.9 * t["latency_ns"]:
            bad.append("top spike at %d: thread %d of %d ns" % (t["t_ns"], t["thread_ns"], t["latency_ns"]))
        if not any(k["kind"] == "task" and k["name"] == "rtsoak_irqoff/0" and k["policy"] == "FIFO"
                   and k["priority"] == 1 and k["pid"] for k in t["contributors"]):
            bad.append("top spike at %d: no rtsoak_irqoff/0 (FIFO 1) with its pid" % t["t_ns"])
    named = sum(c["spikes"] for c in causes if c["cause"] == "task:rtsoak_irqoff/0 (FIFO 1)")
    what = "task:rtsoak_irqoff/0 (FIFO 1)"
else:
    named = sum(c["spikes"] for c in causes if c["kind"] == "task" and c["cause"].startswith("task:")
                and "spike" in c["cause"] and "(FIFO 96)" in c["cause"])
    what = "the spike load's FIFO 96 worker"
    for t in s["top"]:
        if not any(k["kind"] == "task" and "spike" in k["name"] and k["priority"] == 96 and k["pid"]
                   for k in t["contributors"]):
            bad.append("top spike at %d: no spike worker with its pid" % t["t_ns"])
if named < 0.95 * n:
    bad.append("%d of %d spikes: %s" % (named, n, what))
print("# %s: %d of %d spikes: %s; causes %s" % (mode, named, n, what,
      [(c["cause"], c["spikes"]) for c in causes]))
for b in bad[:10]:
    print("# " + b)
sys.exit(1 if bad else 0)
PY
}

lab_hold irq 200 10137
"$RTSOAK" run --duration 5s --interval 1ms --probes timer --cpus 0 --warmup 0 \
	--spike-threshold 100us --trace-stacks -q -o irq.json 2>err
ok $? "irq hold, --trace-stacks: exit 0 ($(head -c 200 err))"
lab_off
validate irq.json
ok $? "irq hold: the report is schema-valid"
attrib irq.json irq
ok $? "irq hold: >= 95 % of the spikes say the timer IRQ came in rtsoak_irqoff_hold, the top ones mostly IRQ latency"

lab_hold preempt 200 10137
"$RTSOAK" run --duration 5s --interval 1ms --probes timer --cpus 0 --warmup 0 \
	--spike-threshold 100us --trace -q -o preempt.json 2>err
ok $? "preempt hold, --trace: exit 0 ($(head -c 200 err))"
lab_off
validate preempt.json
ok $? "preempt hold: the report is schema-valid"
attrib preempt.json preempt
ok $? "preempt hold: >= 95 % of the spikes are the module's thread (FIFO 1), the top ones thread latency"

"$RTSOAK" run --duration 5s --interval 1ms --probes timer --cpus 0 --warmup 0 \
	--loads spike:period=37.013ms:burst=200us --load-cpus 0 \
	--spike-threshold 50us --trace -q -o spike.json 2>err
ok $? "spike load, --trace: exit 0 ($(head -c 200 err))"
validate spike.json
ok $? "spike load: the report is schema-valid"
attrib spike.json spike
ok $? "spike load: >= 95 % of the spikes are its FIFO 96 worker, named with its pid"
done_testing
