#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# lab_attrib_fn.sh (in the lab guest, check_lab.sh): --trace names the
# function a kworker or the TIMER softirq ran when that is what delayed the
# probe (issue 31), for (nearly) every spike:
#   - work mode: a kworker runs the work item rtsoak_irqoff_work, which
#     holds preemption off 200 us: the cause is work:rtsoak_irqoff_work, the
#     spikes' first contributor the kworker with its pid, its function named
#     with its time inside the latency (at most the hold, the worst within
#     10 % below it);
#   - timer mode: the timer_list callback rtsoak_irqoff_timer_fn holds
#     preemption off 200 us in the TIMER softirq (ktimers/0's on this
#     PREEMPT_RT kernel): timer:rtsoak_irqoff_timer_fn, the first contributor
#     softirq TIMER with that callback;
#   - in both, the task on the CPU at the deadline (top[].runnable, rtla's
#     --dump-tasks): the kworker, ktimers/0; and no other measured CPU
#     (top[].cpus empty: the guest has one, the host test has two);
#   - threaded IRQs: disk and 9p reads on CPU 0 with the probe at FIFO 40,
#     below the IRQ threads (FIFO 50): every IRQ thread among the worst
#     spikes' contributors carries its IRQ (the number in its comm), the
#     handler's whole name exactly as /proc/interrupts has it, and the hard
#     IRQ that woke it (its own, on this one CPU), and so does the verdict
#     of a spike it dominated.
# The work is queued every 10137 us (incommensurate with the probe's 1 ms,
# docs/LAB.md); the timer's callback runs at a jiffy, so the probe's
# interval there is 1009 us, no divisor of the tick's, and the holds walk
# through the probe's phase.
. "$(dirname "$0")/lib.sh"
plan 13
cd "$WORK" || exit 1
lab_module
HOLD=200

# check FILE MODE: the attribution of the timer probe's spikes (phase all)
# against what MODE injected.
check() {
	"$PYTHON3" - "$@" "$HOLD" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
mode, hold = sys.argv[2], int(sys.argv[3]) * 1000
s = [s for s in r["attribution"]["series"] if s["probe"] == "timer" and s["phase"] == "all"][0]
fn = {"work": "rtsoak_irqoff_work", "timer": "rtsoak_irqoff_timer_fn"}[mode]
key, kind = "%s:%s" % (mode, fn), {"work": "task", "timer": "softirq"}[mode]
n, bad = s["spikes"], []
if n < 10:
    bad.append("only %d spikes" % n)
named = sum(c["spikes"] for c in s["causes"] if c["cause"] == key and c["kind"] == kind)
if named < 0.95 * n:
    bad.append("%d of %d spikes are %s (%s)" % (named, n, key, kind))
held = []
for t in s["top"]:
    c = t["contributors"][0]
    f = c.get("function") or {}
    if mode == "work":
        who = c["kind"] == "task" and c["name"].startswith("kworker/0:") and c["pid"] > 0 \
            and c["policy"] == "OTHER"
    else:
        who = c["kind"] == "softirq" and c["name"] == "TIMER"
    if t["cause"] != key or not who or f.get("name") != fn or f.get("kind") != mode or \
            ("ran %s " if mode == "work" else "timer callback %s ") % fn not in t["verdict"]:
        bad.append("top spike at %d: %s, %s, %s" % (t["t_ns"], t["cause"], c, t["verdict"]))
        continue
    # what the CPU ran at the deadline (rtla's --dump-tasks): the kworker
    # in its work, ktimers/0 (FIFO 1) in the softirq, first and alone on it
    q = t.get("runnable") or [{}]
    want = (c["pid"], c["name"]) if mode == "work" else (None, "ktimers/0")
    if not q[0].get("running") or q[0].get("name") != want[1] or \
            (want[0] and q[0].get("pid") != want[0]) or sum(k["running"] for k in q) != 1:
        bad.append("top spike at %d: runnable %s" % (t["t_ns"], q))
    if t.get("cpus") != [] or t.get("cpus_truncated") is not False:
        bad.append("top spike at %d: other CPUs %s" % (t["t_ns"], t.get("cpus")))
    held.append(f["ns"])
# inside the latency the function held at most the hold (plus the hold's
# own exit: a clock read and preempt_enable); the worst spike's deadline fell
# near the hold's start, so nearly all of it: 191.2-198.8 us in five runs of
# this test (the holds' phase walks unevenly, the timer's by jiffies), so
# 10 % below the hold
if held and not (0.90 * hold <= max(held) <= hold + 2000):
    bad.append("the worst %s held %d ns, not within 10 %% below %d" % (fn, max(held), hold))
print("# %s: %d of %d spikes %s; held %s ns; verdict %s; causes %s" % (
    mode, named, n, key, sorted(held)[-3:], s["top"][0]["verdict"] if s["top"] else None,
    [(c["cause"], c["spikes"]) for c in s["causes"]]))
for b in bad[:10]:
    print("# " + b)
sys.exit(1 if bad else 0)
PY
}

for mode in work timer; do
	interval=1ms
	[ $mode = timer ] && interval=1009us
	h0=$(lab_holds)
	lab_hold $mode $HOLD 10137
	"$RTSOAK" run --duration 5s --interval $interval --probes timer --cpus 0 --warmup 0 \
		--spike-threshold 100us --trace -q -o $mode.json 2>err
	ok $? "$mode hold, --trace: exit 0 ($(head -c 200 err))"
	lab_off
	validate $mode.json
	ok $? "$mode hold: the report is schema-valid ($(($(lab_holds) - h0)) holds)"
	check $mode.json $mode
	ok $? "$mode hold: >= 95 % of the spikes are its function, the worst held within 10 % of ${HOLD} us, its task on the CPU at the deadline"
	"$RTSOAK" report $mode.json >$mode.txt
	fn=rtsoak_irqoff_work
	[ $mode = timer ] && fn=rtsoak_irqoff_timer_fn
	grep -q "causes: $mode $fn " $mode.txt
	ok $? "$mode hold: the summary's causes line names it ($(grep 'causes:' $mode.txt | head -1))"
done

# --- threaded IRQs ----------------------------------------------------------
# /proc/interrupts' names by IRQ, for the check
awk '$1 ~ /^[0-9]+:$/ { sub(":", "", $1); print $1, $NF }' /proc/interrupts >irqnames
# (the page cache dropped each round, so that every read goes to the 9p
# share's virtio device)
( while :; do echo 3 >/proc/sys/vm/drop_caches; cat /job/src/docs/*.md >/dev/null
	dd if=/dev/zero of=/tmp/lab-io bs=64k count=64 oflag=direct 2>/dev/null; done ) &
io=$!
taskset -pc 0 $io >/dev/null
"$RTSOAK" run --duration 4s --interval 1ms --probes timer --cpus 0 --warmup 0 --priority 40 \
	--spike-threshold 10us --trace -q -o irq.json 2>err
rc=$?
kill $io
wait $io 2>/dev/null
rm -f /tmp/lab-io
ok $rc "disk and 9p reads, probe FIFO 40, --trace: exit 0 ($(head -c 200 err))"
validate irq.json
ok $? "threaded IRQs: the report is schema-valid"
"$PYTHON3" - irq.json irqnames <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
names = dict(l.split() for l in open(sys.argv[2]))
s = [s for s in r["attribution"]["series"] if s["probe"] == "timer" and s["phase"] == "all"][0]
bad, seen, led = [], 0, 0
for t in s["top"]:
    for i, c in enumerate(t["contributors"]):
        m = re.match(r"irq/(\d+)-", c["name"]) if c["kind"] == "task" else None
        it = c.get("irq_thread")
        if not m:
            if it is not None:
                bad.append("not a threaded handler: %s" % c)
            continue
        seen += 1
        n = m.group(1)
        w = (it or {}).get("woken_by") or {}
        if not it or str(it["irq"]) != n or it["name"] != names.get(n) or \
                w.get("kind") != "irq" or str(w.get("id")) != n:
            bad.append("%s: %s" % (c["name"], it))
        if i == 0 and t["cause"].startswith("task:irq/"):
            led += 1
            if "the threaded handler of IRQ %s (%s), woken by its hard IRQ " % (n, names.get(n)) \
                    not in t["verdict"]:
                bad.append("verdict: %s" % t["verdict"])
if not seen or not led:
    bad.append("%d threaded handlers among the worst spikes, %d of those spikes theirs" % (seen, led))
print("# %d threaded handlers among the worst spikes' contributors, %d spikes theirs; causes %s; %s" % (
    seen, led, [(c["cause"], c["spikes"]) for c in s["causes"][:4]],
    s["top"][0]["verdict"] if s["top"] else None))
for b in bad[:10]:
    print("# " + b)
sys.exit(1 if bad else 0)
PY
ok $? "threaded IRQs: each named with its IRQ, its handler's name and the hard IRQ that woke it"

# rmmod while a work item or a timer is pending or running: the module
# cancels them (no callback into freed code; the other lab tests load it
# again).  Holds of 900 us every 1 ms: one is nearly always in flight.
for mode in work timer; do
	lab_module
	lab_hold $mode 900 1000
	sleep 0.05
	h=$(lab_holds)
	k=$(dmesg | wc -l)
	rmmod rtsoak_irqoff && [ ! -d "$LAB_P" ] && ! grep -q rtsoak_irqoff /proc/[0-9]*/comm 2>/dev/null &&
		! dmesg | tail -n +$((k + 1)) | grep -q -E "BUG|WARNING|Oops"
	ok $? "$mode mode: rmmod while holding ($h holds made) cancels its work/timer, no kernel warning since"
done
done_testing
