#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# vm_trace.sh: run --trace where the kernel has the osnoise events (the
# PREEMPT_RT guest of check-vm, job "trace": 4 vCPUs under single-threaded
# TCG, see check_vm.sh for why).  Facts, not latency:
#  - a --trace run on every CPU with both probes exits 0 with a valid report;
#  - the tracer enabled each osnoise:* event this kernel has, beside the
#    sched/irq/vector/power ones, and filtered the timer probes' own
#    wake-ups from idle out of them;
#  - every result has its attribution series, and what was attributed and
#    what was not add up to its logged spikes;
#  - the instance is gone after the run and the top level is as before.
. "$(dirname "$0")/../integration/lib.sh"
require_root
eval "lib_$(declare -f ok)"
ok() { lib_ok "$1" "$2 [${SECONDS} s]"; }
plan 6
cd "$WORK" || exit 1
T=/sys/kernel/tracing
[ "$(stat -f -c %T $T 2>/dev/null)" = tracefs ] || mount -t tracefs nodev $T || exit 1
# buffer_size_kb of a fresh boot reads "7 (expanded: 1408)" until the
# kernel first allocates the top-level buffer, which it does itself when an
# event is enabled anywhere (tracing_update_buffers), an instance's too: the
# size, not that note, is what a tool may not change.
top_state() {
	for f in tracing_on current_tracer buffer_size_kb trace_clock tracing_cpumask set_event; do
		echo "== $f"
		cat "$T/$f" 2>&1 | sed 's/ (expanded: [0-9]*)$//'
	done
}
top_state >top.before
osn=$(ls "$T/events/osnoise" 2>/dev/null | grep -vE '^(enable|filter)$' | sort | tr '\n' ' ')

"$RTSOAK" run --trace --duration 5s -q -o tr.json 2>tr.err
ok $? "run --trace on $(nproc) CPUs, timer and net, exits 0 ($(head -c 300 tr.err))"
validate tr.json
ok $? "its report is schema-valid"
[ -n "$osn" ] &&
	[ "$(jget tr.json "sorted(e.split(':')[1] for e in r['attribution']['tracer']['events'] if e.startswith('osnoise:'))" | tr -d '[]",' | tr ' ' '\n' | grep -v '^$' | sort | tr '\n' ' ')" = "$osn" ]
ok $? "the tracer enabled this kernel's osnoise events ($osn)"
# No hrtimer events (the timer probe is anchored on its sched_waking; the
# timer wheel's timer_expire_* are recorded, for the TIMER softirq's
# callbacks, and workqueue_execute_*, for what kworkers run);
# sched_wakeup for the net probe; most of the timer probes' own wake-ups
# from idle filtered out (issue 31), their sched_waking not.
ev="r['attribution']['tracer']['events']"
flt="r['attribution']['tracer'].get('filters', {})"
[ "$(jget tr.json "all(e in $ev for e in ('sched:sched_switch', 'sched:sched_waking', 'sched:sched_wakeup', 'irq:irq_handler_entry', 'irq_vectors:local_timer_entry', 'power:cpu_idle', 'timer:timer_expire_entry', 'timer:timer_expire_exit', 'workqueue:workqueue_execute_start', 'workqueue:workqueue_execute_end')) and not any(e.startswith('timer:hrtimer_') for e in $ev) and sorted($flt) == ['irq_vectors:local_timer_entry', 'irq_vectors:local_timer_exit', 'power:cpu_idle', 'sched:sched_switch', 'sched:sched_wakeup']")" = true ]
ok $? "and the sched, irq, vector, power, timer wheel and workqueue events, no hrtimer ones, the timer probes' wake-ups from idle filtered ($(jget tr.json "$flt"))"
# Each timer and net result (the probes whose wake-ups are explained; the
# net.stack and net.wakeup parts are not) has an "all" series, and its
# attributed and not-attributed spikes add up to its logged ones.
"$PYTHON3" - tr.json >series.check <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
a = r["attribution"]["series"]
want = {(x["probe"], x["cpu"]) for x in r["results"] if x["probe"] in ("timer", "net") and x["phase"] == "all"}
have = {(x["probe"], x["cpu"]) for x in a if x["phase"] == "all"}
bad = []
for x in a:
    na = sum(x["not_attributed"].values())
    if x["attributed"] + na != x["spikes"]:
        bad.append((x["probe"], x["cpu"], x["phase"], x["spikes"], x["attributed"], na))
spikes = sum(x["spikes"] for x in a if x["phase"] == "all")
print("ok" if want == have and not bad and spikes > 0 else "bad",
      "results %s, series %s, spikes %d, inconsistent %s" % (sorted(want), sorted(have), spikes, bad[:3]))
EOF
grep -q '^ok ' series.check
ok $? "every result has its attribution, the counts add up ($(cat series.check))"
top_state >top.after
[ -z "$(ls $T/instances | grep '^rtsoak-')" ] && diff top.before top.after >top.diff
ok $? "no rtsoak instance left, the top level as before ($(ls $T/instances | tr '\n' ' '); $(head -c 200 top.diff 2>/dev/null))"
done_testing
