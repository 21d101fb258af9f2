#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rtsoak run --trace end to end (issue 14): real SCHED_FIFO probes, the real
# spike load, rtsoak's own tracefs instance.
#  - the spike load one priority above the probes, on the measured CPU: the
#    spikes above half its burst are attributed to its worker (comm, pid,
#    FIFO priority), the largest with a preemption within 10 % of the burst,
#    and the recurring pattern carries it as its culprit;
#  - the spike load on both CPUs, both measured: each worst spike lists the
#    other measured CPU's run queue at its deadline, well formed, and the
#    same as that CPU's own list at a spike of the same deadline;
#  - a net run under the msg load: its spikes name softirqs, IRQs or tasks;
#  - --trace-stacks with dd writing in the kernel on the measured CPU: the
#    worst spikes name the kernel function the timer interrupt came in,
#    each a real symbol, every spike's is counted per cause, and the report
#    says what the stacks cost;
#  - an idle CPU: its spikes attributed, the idle task only ever an idle
#    exit, whose state is named exactly when the kernel traced one ("idle:?"
#    where power:cpu_idle never fires, as on this VM);
#  - no leftovers: after a normal end, SIGINT and SIGKILL (and the next run,
#    which removes the killed run's instance), no rtsoak-<pid>-<token> instance of
#    ours remains and the top-level tracing state is as it was;
#  - without tracefs (hidden under a tmpfs in a mount namespace) --trace exits
#    3 with one line before measuring; without --trace nothing is mounted.
# Runs in a private mount namespace (the test re-executes itself): tracefs
# mounted here is unmounted with the namespace.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema
trace_test_ns "$@"
T=/sys/kernel/tracing
plan 38
cd "$WORK" || exit 1
[ "$(stat -f -c %T $T)" = tracefs ] || mount -t tracefs nodev $T || exit 1
top_state() {
	for f in tracing_on current_tracer buffer_size_kb trace_clock tracing_cpumask set_event \
		events/irq_vectors/local_timer_entry/trigger; do
		echo "== $f"
		cat "$T/$f" 2>&1
	done
}
ours() { ls "$T/instances" | grep -E "^rtsoak-($1)-[0-9a-f]{16}\$"; }
top_state >top.before

# --- the spike load preempts the probe: attributed to it ------------------
# FIFO one above the probes on CPU 1, 20 ms every 400 ms (15 bursts), longer
# than the host's own stalls of a busy shared VM; a 10 ms threshold (half a
# burst) so that those stalls, of a few ms, are rarely logged at all (each
# one attributed or not counts in the 95 %); 100 us probe period, so
# the first deadline inside a burst is at most 0.1 ms after its start: its
# latency, and the preemption, are the burst within 10 %.
"$RTSOAK" run --trace --probes timer --cpus 1 --interval 100us --duration 6s \
	--loads spike:period=400ms:burst=20ms:cpus=1 --spike-threshold 10ms -q -o spike.json 2>spike.err &
pid=$!
sleep 2
[ -n "$(ours $pid)" ]
ok $? "during the run its own instance rtsoak-$pid-<token> exists"
wait $pid
ok $? "run --trace with the spike load exits 0 ($(head -c 300 spike.err))"
validate spike.json
ok $? "its report is schema-valid"
[ -z "$(ours $pid)" ]
ok $? "after a normal end the instance is gone"
# sj FILE EXPR: EXPR with a = the timer probe's series entry of CPU 1, phase
# all, and w = its top spikes that the spike worker dominated.
sj() {
	"$PYTHON3" -c 'import json,sys
r = json.load(open(sys.argv[1]))
a = [x for x in r["attribution"]["series"] if x["probe"] == "timer" and x["cpu"] == 1 and x["phase"] == "all"][0]
w = [t for t in a["top"] if t["cause"].startswith("task:rtsoak-spike/0")]
v = eval(sys.argv[2])
print(json.dumps(v) if not isinstance(v, str) else v)' "$1" "$2"
}
n=$(sj spike.json "a['spikes']")
att=$(sj spike.json "a['attributed']")
diag "spikes $n, attributed $att ($(sj spike.json "a['not_attributed']")); causes $(sj spike.json "[(c['cause'], c['spikes'], round(c['share'], 3)) for c in a['causes'][:4]]")"
[ "$n" -ge 12 ] && [ $((att * 100)) -ge $((n * 95)) ]
ok $? "at least 12 spikes, 95 % of them attributed ($att of $n)"
[ "$(sj spike.json "[c['spikes'] for c in a['causes'] if c['cause'] == 'task:rtsoak-spike/0 (FIFO 96)'] + [0]")" != "[0]" ] &&
	[ "$(sj spike.json "[c['spikes'] for c in a['causes'] if c['cause'] == 'task:rtsoak-spike/0 (FIFO 96)'][0] >= 12")" = true ]
ok $? "the spike worker dominated at least 12 of the 15 bursts' spikes"
[ "$(sj spike.json "len(w) >= 3 and all([t['contributors'][0][k] for k in ('kind', 'name', 'policy', 'priority')] == ['task', 'rtsoak-spike/0', 'FIFO', 96] and t['contributors'][0]['pid'] > 1 for t in w)")" = true ]
ok $? "its spikes' first contributor: task rtsoak-spike/0 with its pid, FIFO 96 (the probes' 95 + 1) ($(sj spike.json "w[0]['contributors'][0] if w else None"))"
[ "$(sj spike.json "18e6 <= sorted(t['contributors'][0]['ns'] for t in w)[len(w) // 2] <= 22e6")" = true ]
ok $? "the median preemption is the 20 ms burst within 10 % (a host stall inside a burst makes one longer) ($(sj spike.json "[t['contributors'][0]['ns'] for t in w]") ns)"
[ "$(sj spike.json "all(t['thread_ns'] is not None and t['irq_ns'] is not None and t['thread_ns'] > t['irq_ns'] for t in w)")" = true ]
ok $? "the split: the preemption is thread latency, not IRQ latency ($(sj spike.json "[(t['irq_ns'], t['thread_ns']) for t in w[:3]]"))"
# Its share depends on what else the (shared) machine did; its excess is
# its own: 12 or more bursts, each 20 ms less the 10 ms threshold (and
# less the up to 0.1 ms from a burst's start to the next deadline).
[ "$(sj spike.json "[c['excess_ns'] for c in a['causes'] if c['cause'] == 'task:rtsoak-spike/0 (FIFO 96)'][0] >= 12 * 9e6")" = true ]
ok $? "the causes table: the spike worker's excess latency is its bursts' ($(sj spike.json "[(c['cause'], c['excess_ns']) for c in a['causes'][:3]]"))"
[ "$(sj spike.json "sorted(set(i for t, i in a['spike_causes'])) == list(range(len(a['causes']))) and len(a['spike_causes']) == a['attributed']")" = true ]
ok $? "spike_causes: one per attributed spike, every cause used"
cul=$(jget spike.json '[p.get("culprit", {}).get("cause", "") for s in r["analysis"]["periodicity"] if s["probe"] == "timer" and s["cpu"] == 1 for p in s["patterns"]]' 2>/dev/null)
echo "$cul" | grep -q 'task:rtsoak-spike/0'
ok $? "the 400 ms pattern names the spike worker as its culprit ($cul)"
[ "$(jget spike.json '[r["attribution"]["cpus"][0]["cpu"], r["attribution"]["cpus"][0]["lost"], r["attribution"]["cpus"][0]["events"] > 1000, r["config"]["trace"]]')" = '[1, 0, true, true]' ]
ok $? "CPU 1 only, events recorded, none lost ($(jget spike.json 'r["attribution"]["cpus"]'))"
"$RTSOAK" report spike.json >spike.txt
grep -q "causes: .*rtsoak-spike/0" spike.txt
ok $? "the summary has a causes line ($(grep 'causes:' spike.txt | head -1))"
# The timeline: the spike worker's segments are its time, in order,
# inside the latency; the page draws them where they happened.
# (a window with more stretches than kept shows the first ones: then the
# worker's segments add up to at most its time)
[ "$(sj spike.json "all((sum(n for o, n, c in t['timeline'] if c == 0) <= t['contributors'][0]['ns'] if t['timeline_truncated'] else sum(n for o, n, c in t['timeline'] if c == 0) == t['contributors'][0]['ns']) and all(o >= e for (o, n, c), e in zip(t['timeline'], [0] + [o + n for o, n, c in t['timeline']])) and t['timeline'][-1][0] + t['timeline'][-1][1] <= t['latency_ns'] for t in w)")" = true ]
ok $? "each worst spike's timeline: ordered, inside the latency, the worker's segments add up to its time ($(sj spike.json "w[0]['timeline'] if w else None"))"
"$RTSOAK" report spike.json --html spike.html &&
	"$PYTHON3" - spike.html <<'EOF'
import re, sys
h = open(sys.argv[1]).read()
strips = re.findall(r'<span class="tl" data-latency-ns="(\d+)">(.*?)</span>', h)
assert strips, "no timeline strip"
task = 0
for lat, body in strips:
    lat, held = int(lat), 0
    for off, ns, kind, left, width in re.findall(r'<i data-off-ns="(\d+)" data-ns="(\d+)" data-kind="([a-z_]+)" style="left:([\d.]+)%;width:([\d.]+)%', body):
        off, ns = int(off), int(ns)
        assert off + ns <= lat, (off, ns, lat)
        assert abs(float(left) - 100 * off / lat) < 0.01 and abs(float(width) - 100 * ns / lat) < 0.01
        held += ns if kind == "task" else 0
    task += held > 0.5 * lat
assert task, "no strip where a task held most of the latency"
EOF
ok $? "the HTML page: a timeline strip per worst spike, segments placed by their time, tasks holding most of a spike's"
[ "$(jget spike.json '[r["config"]["trace_stacks"], r["attribution"]["tracer"]["stacks"], "stack_cost" in r["attribution"]["tracer"], sorted(set(t["irq_at"] for x in r["attribution"]["series"] for t in x["top"])), sorted(set((len(c["irq_at"]), c["irq_at_other"]) for x in r["attribution"]["series"] for c in x["causes"]))]')" = '[false, false, false, [null], [[0, 0]]]' ]
ok $? "without --trace-stacks: no stacks, no stack cost, no irq_at (the causes' tallies empty)"
# steal is read each tick: known for every worst spike, over a span that
# holds its window (the kernel has a steal column here)
[ "$(sj spike.json "bool(a['top']) and all(t['steal_ns'] is not None and t['steal_span_ns'] >= t['latency_ns'] for t in a['top'])")" = true ]
ok $? "each worst spike has its CPU's steal over a span that holds its window ($(sj spike.json "[(t['steal_ns'], t['steal_span_ns']) for t in a['top'][:3]]"))"

# --- every measured CPU at the worst spikes (rtla's --dump-tasks) ----------
# Both CPUs measured, a spike worker on each (its bursts aligned on both).
# Each worst spike of one CPU lists the other's run queue at its deadline
# (top[].cpus): one entry, that CPU; known where its window covered the
# moment (all of it held and read: the rule on this host, so at least half
# of them); at most one task on the CPU, listed first, the waiting ones by
# priority (deadline, FIFO highest first, then SCHED_OTHER by nice).  Both probes
# sleep to the same deadlines and the bursts start together, so a burst
# gives a spike on each CPU at one deadline: there the other CPU's entry is
# what that CPU's own spike lists (top[].runnable), the same rebuild from
# the same events, for every such pair.  How many pairs there are is the
# machine's: in the RT guest, whose vCPUs take turns in one host thread, the
# two workers wake a turn apart and no deadline is shared (the unit test
# compares the two rebuilds on the same events).  What ran is the host's: no
# names asserted.
"$RTSOAK" run --trace --probes timer --cpus 0,1 --interval 100us --duration 4s \
	--loads spike:period=400ms:burst=20ms:cpus=0,1 --spike-threshold 10ms -q -o two.json 2>two.err
ok $? "run --trace with the spike load on both measured CPUs exits 0 ($(head -c 300 two.err))"
validate two.json && "$RTSOAK" report two.json >two.txt
ok $? "its report is schema-valid and rtsoak report reads it"
"$PYTHON3" - two.json >two.check <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
S = {x["cpu"]: x for x in r["attribution"]["series"] if x["probe"] == "timer" and x["phase"] == "all"}
bad, known, n, same = [], 0, 0, 0
def rank(k):  # as the kernel's prio: DL before FIFO 99..1 before nice -20..19
    p = {"DL": -1000, "FIFO": -k["priority"]}.get(k["policy"], 100 + k["priority"])
    return (not k["running"], p)
for cpu, other in ((0, 1), (1, 0)):
    own = {t["t_ns"]: t for t in S[other]["top"]}
    for t in S[cpu]["top"]:
        n += 1
        e = t.get("cpus") or [{}]
        if len(e) != 1 or e[0].get("cpu") != other or t.get("cpus_truncated") is not False:
            bad.append("cpu %d at %d: cpus %s" % (cpu, t["t_ns"], t.get("cpus")))
            continue
        e = e[0]
        q = e["runnable"]
        if not e["known"]:
            if q:
                bad.append("cpu %d at %d: not known, yet %s" % (cpu, t["t_ns"], q))
            continue
        known += 1
        if sum(k["running"] for k in q) > 1 or any(k["pid"] < 1 for k in q) or \
                [rank(k) for k in q] != sorted(rank(k) for k in q):
            bad.append("cpu %d at %d: runnable %s" % (cpu, t["t_ns"], q))
        o = own.get(t["t_ns"])
        if o is not None:
            same += 1
            if (o["runnable"], o["runnable_truncated"]) != (q, e["runnable_truncated"]):
                bad.append("cpu %d at %d: %s, cpu %d's own %s" % (cpu, t["t_ns"], q, other, o["runnable"]))
print("tops %d, known %d, same deadline %d, bad %s" % (n, known, same, bad[:3]))
sys.exit(0 if n >= 6 and 2 * known >= n and not bad else 1)
EOF
ok $? "each worst spike lists the other measured CPU's run queue at its deadline, well formed, the same as that CPU's own at the same deadline ($(cat two.check))"

# --- --trace-stacks: where the timer interrupt came ------------------------
# dd writing to a tmpfs file keeps CPU 1 in the kernel (copy, page cache,
# slab); the stack at each local-timer interrupt names the function it
# came in, below the interrupt's own frames and past unlock helpers.
cat >dd.sh <<EOF
while :; do dd if=/dev/zero of=$WORK/dd.out bs=1M count=64 2>/dev/null; done
EOF
"$RTSOAK" run --trace-stacks --probes timer --cpus 1 --interval 1ms --duration 3s \
	--loads "exec:cpus=1:cmd=sh $WORK/dd.sh" --spike-threshold 20us -q -o stk.json 2>stk.err
ok $? "run --trace-stacks with dd in the kernel on CPU 1 exits 0 ($(head -c 300 stk.err))"
rm -f dd.out
validate stk.json &&
	[ "$(jget stk.json '[r["config"]["trace_stacks"], r["attribution"]["tracer"]["stacks"], "ftrace:kernel_stack" in r["attribution"]["tracer"]["events"], r["attribution"]["tracer"]["stack_cost"]["stacks"] > 100, 0 < r["attribution"]["tracer"]["stack_cost"]["mean_ns"] <= r["attribution"]["tracer"]["stack_cost"]["max_ns"]]')" = '[true, true, true, true, true]' ]
ok $? "schema-valid; config and tracer say stacks, with their cost per interrupt ($(jget stk.json 'r["attribution"]["tracer"].get("stack_cost")'))"
# every name is a text symbol of this kernel (cut to 23 bytes), or user/?
"$PYTHON3" - stk.json >stk.check <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
syms = set()
for line in open("/proc/kallsyms"):
    f = line.split()
    if len(f) >= 3 and f[1] in "tTwW":
        syms.add(f[2][:23])
tops = [t for x in r["attribution"]["series"] if x["phase"] == "all" for t in x["top"]]
at = [t["irq_at"] for t in tops if t["irq_at"] is not None]
kern = [t for t in tops if t["irq_at"] not in (None, "user", "?")]
bad = [a for a in at if a not in ("user", "?") and a not in syms]
badv = [t["verdict"] for t in kern if "; the timer IRQ came in %s, " % t["irq_at"] not in t["verdict"]]
print(len(tops), len(at), len(kern), bad, badv[:2], [t["irq_at"] for t in kern][:6])
sys.exit(0 if tops and kern and not bad and not badv else 1)
EOF
ok $? "the worst spikes name where the timer IRQ came: kernel symbols, in the verdict (tops, with a stack, in the kernel, not symbols, bad verdicts, names: $(cat stk.check))"
# every spike's, counted per cause: the worst spikes' kernel functions are
# among them (or, beyond the 8 kept, in irq_at_other), most first, no more
# than the cause's spikes
"$PYTHON3" - stk.json >stk.tally <<'EOF'
import collections, json, sys
r = json.load(open(sys.argv[1]))
bad, shown = [], []
for x in r["attribution"]["series"]:
    for c in x["causes"]:
        at, other = c["irq_at"], c["irq_at_other"]
        n = [e["spikes"] for e in at]
        fns = {e["function"]: e["spikes"] for e in at}
        if n != sorted(n, reverse=True) or sum(n) + other > c["spikes"] or len(at) > 8 or \
                (other and len(at) < 8) or set(fns) & {"user", "?", ""}:
            bad.append((c["cause"], at, other, c["spikes"]))
        tops = collections.Counter(t["irq_at"] for t in x["top"] if t["cause"] == c["cause"]
                                   and t["irq_at"] not in (None, "user", "?"))
        for f, k in tops.items():
            if fns.get(f, 0) < k and (f in fns or other < k):
                bad.append((c["cause"], f, k, at, other))
        if x["phase"] == "all" and at:
            shown.append("%s: %s" % (c["cause"], at[0]))
print(bad[:3], shown[:4])
sys.exit(0 if shown and not bad else 1)
EOF
ok $? "each cause counts where the timer IRQ came for all its spikes (bad, first functions: $(cat stk.tally))"

# --- net under the msg load: softirqs, IRQs or tasks ---------------------
# The sender on the measured CPU too: loopback's NET_RX softirq runs where
# the datagram is sent, so the receive path is on the traced CPU.
# A 5 us threshold: the msg load's wake-ups pass it whatever the host does
# (at 100 us a quiet moment of the machine left no spike to explain, seen
# once in a distcheck; at 20 us a quick host had none at all: its largest
# net latency under msg was 16.6 us, its median 8 us).
"$RTSOAK" run --trace --probes net --cpus 1 --net-sender-cpu 1 --duration 4s --loads msg:cpus=1 \
	--spike-threshold 5us -q -o net.json 2>net.err
ok $? "run --trace --probes net under msg exits 0 ($(head -c 300 net.err))"
# Until the probe is woken its datagram is on the way (transit: the
# sender's CPU, which is not traced); from the wake-up on, what this CPU ran.
kinds=$(jget net.json 'sorted(set(c["kind"] for x in r["attribution"]["series"] if x["probe"] == "net" for t in x["top"] for c in t["contributors"]))')
nspk=$(jget net.json 'sum(x["spikes"] for x in r["attribution"]["series"] if x["probe"] == "net" and x["phase"] == "all")')
echo "$kinds" | grep -Eq '"(softirq|task)"'
ok $? "the net spikes' contributors name softirqs or tasks ($nspk spikes; $kinds)"

# --- an idle CPU: its wake-ups are exits from idle --------------------------
# An idle CPU: the time the idle task held the CPU inside a wake-up's
# latency is the exit from idle, never a task's or a silent gap's.  The
# probe sleeps 10 ms, beyond the analysis window's 2 ms lookback, so who
# held the CPU comes from its last switch before the window (a CI run
# before that left 15 % of such spikes without an anchor and found no idle
# exit).  The spikes must be attributed, the idle task never named as a
# task, every idle exit name its state exactly when the kernel traced one,
# and, when CPU 1 was idle at least 20 % of the run (make -j neighbours may
# keep it busy), some spike show an idle exit: how large a part of each it
# is belongs to the host (HLT on this VM, which often resumes the vCPU
# faster than the local-timer interrupt takes).
# Whether the kernel names an idle state on CPU 1 while rtsoak measures
# there is the kernel's too (this PVM guest traces none, driver or not):
# the test's own instance, beside rtsoak's, records power:cpu_idle on
# CPU 1 during the run (state=4294967295 is the exit, not counted).
drv=$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)
# An idle exit's state is the last cpu_idle entry's before its window (an
# exit names none); only events lost by rtsoak's recorder on CPU 1 can make
# it unknowable.  Every wake-up is a logged spike (5 us threshold).  The idle share is
# over the command's whole wall time (set-up and tear-down included).
idle_of() { awk '$1 == "cpu1" { print $5 }' /proc/stat; }
I=$T/instances/ta-idle-$$
mkdir "$I" && echo 2 >"$I/tracing_cpumask" && echo 1 >"$I/events/power/cpu_idle/enable" || exit 1
i0=$(idle_of)
w0=$(date +%s%N)
"$RTSOAK" run --trace --probes timer --cpus 1 --interval 10ms --duration 4s --spike-threshold 5us -q -o idle.json 2>idle.err
i1=$(idle_of)
w1=$(date +%s%N)
echo 0 >"$I/tracing_on"
states=$(grep -c 'cpu_idle: state=[0-9]\{1,9\} ' "$I/trace")
rmdir "$I"
idle_pct=$(( (i1 - i0) * 100 * 1000000000 / ((w1 - w0) * $(getconf CLK_TCK)) ))
"$PYTHON3" - idle.json "$states" "$idle_pct" >idle.check <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
named = int(sys.argv[2]) > 0
idle = int(sys.argv[3]) >= 20
a = [x for x in r["attribution"]["series"] if x["probe"] == "timer" and x["cpu"] == 1 and x["phase"] == "all"][0]
contribs = [c for t in a["top"] for c in t["contributors"]]
idle_names = [c["cause"] for c in a["causes"] if c["kind"] == "idle"] + \
    ["idle:?" if c["id"] in (None, 4294967295) else "idle:%d" % c["id"] for c in contribs if c["kind"] == "idle"]
bad_task = [c for c in contribs if c["kind"] == "task" and (c.get("pid") == 0 or c["name"].startswith("swapper"))]
# named from the last cpu_idle entry before each window; unknowable only
# where rtsoak's recorder lost events on the CPU (the verdict says so)
lost = sum(c["lost"] for c in r["attribution"]["cpus"] if c["cpu"] == 1)
bad_state = [n for n in idle_names if (n != "idle:?") != named and not (n == "idle:?" and lost)]
ok = a["spikes"] >= 100 and a["attributed"] * 100 >= a["spikes"] * 95 and not bad_task and not bad_state \
    and (idle_names or not idle)
print("ok" if ok else "bad", "spikes %d attributed %d; idle exits %d (%s); idle task as a task %d; wrong state naming %s; events lost %d; causes %s" % (
    a["spikes"], a["attributed"], len(idle_names), sorted(set(idle_names)), len(bad_task), bad_state[:3], lost,
    [(c["cause"], c["spikes"]) for c in a["causes"][:4]]))
EOF
diag "$(cat idle.check)"
grep -q '^ok ' idle.check
ok $? "an idle CPU's wake-ups: attributed, the idle task only as an idle exit, its state named exactly when the kernel traced one, an idle exit when it was idle (CPU 1 idle $idle_pct % of the run, needs 20; cpuidle driver '$drv', $states idle entries traced; $(cat idle.check))"

# --- what kworkers and timer softirqs ran (issue 31) -------------------------
# Whatever ran on this host: where the kernel has the events, the instance
# records workqueue_execute_start/end and timer_expire_entry/exit (never
# the hrtimer ones, on the probe's own path), and every function a
# contributor names is well formed and within its time; a cause keyed by a
# function ("work:FN", "timer:FN") is the function its spikes' first
# contributor spent at least half its time in.  Which functions ran here is
# the host's (the lab asserts them: tests/lab/lab_attrib_fn.sh).  A task
# whose comm is irq/N-... (a threaded IRQ handler) carries irq_thread with
# that N, and no other contributor does.  Each worst spike lists the run
# queue at its deadline: at most one task on the CPU, that one first.
"$PYTHON3" - "$T/events" spike.json stk.json net.json idle.json >fn.check <<'EOF'
import json, os, re, sys
ev = sys.argv[1]
want = [e for e in ("workqueue:workqueue_execute_start", "workqueue:workqueue_execute_end",
                    "timer:timer_expire_entry", "timer:timer_expire_exit")
        if os.path.isdir(os.path.join(ev, *e.split(":")))]
bad, named = [], []
for f in sys.argv[2:]:
    r = json.load(open(f))
    events = r["attribution"]["tracer"]["events"]
    bad += ["%s: %s not enabled" % (f, e) for e in want if e not in events]
    bad += ["%s: %s enabled" % (f, e) for e in events if e.startswith("timer:hrtimer_")]
    for x in r["attribution"]["series"]:
        for t in x["top"]:
            for c in t["contributors"]:
                m = re.match(r"irq/(\d+)-", c["name"]) if c["kind"] == "task" else None
                it = c.get("irq_thread")
                if (m is None) != (it is None) or (m and it["irq"] != int(m.group(1))):
                    bad.append("%s: irq_thread %s" % (f, c))
                elif it:
                    named.append("%s irq %d %s" % (c["name"], it["irq"], it["name"]))
                fn = c.get("function")
                if fn is None:
                    continue
                named.append("%s %s %s %d" % (c["name"], fn["kind"], fn["name"], fn["ns"]))
                if not fn["name"] or fn["kind"] not in ("work", "timer") or \
                        not 0 < fn["ns"] <= c["ns"] or fn["ns"] + fn["other_ns"] > c["ns"] or \
                        c["kind"] not in ("task", "softirq", "silent"):
                    bad.append("%s: %s" % (f, c))
            q = t.get("runnable")
            if q is None or sum(k["running"] for k in q) > 1 or \
                    any(k["pid"] < 1 for k in q) or (any(k["running"] for k in q) and not q[0]["running"]):
                bad.append("%s: runnable %s" % (f, q))
            k, _, name = t["cause"].partition(":")
            if k in ("work", "timer"):
                c = t["contributors"][0]
                fn = c.get("function") or {}
                if fn.get("kind") != k or fn.get("name") != name or 2 * fn["ns"] < c["ns"] or \
                        c["kind"] not in ("task", "softirq") or name not in t["verdict"]:
                    bad.append("%s: cause %s, first contributor %s" % (f, t["cause"], c))
        for c in x["causes"]:
            k = c["cause"].partition(":")[0]
            if (k == "work" and c["kind"] != "task") or \
                    (k == "timer" and c["kind"] not in ("task", "softirq")):
                bad.append("%s: cause %s of kind %s" % (f, c["cause"], c["kind"]))
print("bad %s; named %d: %s; events %s" % (bad[:3], len(named), sorted(set(named))[:4], want))
sys.exit(1 if bad else 0)
EOF
ok $? "work functions and timer callbacks: recorded where the kernel has the events, named well formed within their contributor's time; threaded IRQ handlers by their IRQ; a well-formed run queue at each worst spike's deadline ($(cat fn.check))"

# --- SIGINT and SIGKILL: no leftovers -------------------------------------
"$RTSOAK" run --trace --probes timer --cpus 1 --duration 60s -q -o int.json 2>int.err &
pid=$!
sleep 2
kill -INT $pid
wait $pid
ok $? "SIGINT ends a --trace run with exit 0 ($(head -c 200 int.err))"
[ -z "$(ours $pid)" ] && [ "$(jget int.json 'r["run"]["status"]')" = interrupted ] &&
	[ "$(jget int.json '"attribution" in r')" = true ]
ok $? "after SIGINT: the instance is gone, the report has its attribution"
"$RTSOAK" run --trace --probes timer --cpus 1 --duration 60s -q -o kill.json 2>kill.err &
pid=$!
sleep 2
kill -KILL $pid
wait $pid 2>/dev/null
[ -n "$(ours $pid)" ]
ok $? "SIGKILL leaves its instance rtsoak-$pid-<token> behind"
"$RTSOAK" run --trace --probes timer --cpus 1 --duration 1s -q -o next.json 2>next.err
ok $? "the next --trace run exits 0 ($(head -c 200 next.err))"
# Its own by the name its report gives (an instance of another run that is
# still live, a test beside this one, is not this run's to remove).
own=$(jget next.json 'r["attribution"]["tracer"]["instance"].split("/")[-1]')
[ -z "$(ours "$pid")" ] && [ -n "$own" ] && [ ! -e "$T/instances/$own" ]
ok $? "it removed the killed run's instance, and its own ($own; instances now: $(ls $T/instances | tr '\n' ' '))"
top_state >top.after
diff top.before top.after >top.diff
ok $? "the top-level tracing state is as before ($(head -c 200 top.diff))"

# --- without tracefs, and without --trace -----------------------------------
unshare -m --propagation private sh -c "umount $T 2>/dev/null; mount -t tmpfs none $T &&
	exec \"$RTSOAK\" run --trace --probes timer --duration 30s -q -o none.json" 2>none.err
rc=$?
[ $rc -eq 3 ] && [ "$(wc -l <none.err)" -eq 1 ] && grep -q "^rtsoak: --trace: " none.err && [ ! -e none.json ]
ok $? "no tracefs: exit 3, one line, before measuring (rc $rc: $(cat none.err))"
unshare -m --propagation private sh -c "umount $T 2>/dev/null
	\"$RTSOAK\" run --probes timer --duration 1s -q -o plain.json || exit 1
	[ \"\$(stat -f -c %T $T)\" != tracefs ]" 2>plain.err
ok $? "without --trace nothing is mounted ($(head -c 200 plain.err))"
[ "$(jget plain.json '["attribution" in r, r["config"]["trace"]]')" = '[false, false]' ]
ok $? "and the report has no attribution section"
done_testing
