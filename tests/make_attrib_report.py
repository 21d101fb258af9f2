#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make_attrib_report.py IN.json OUT.json [--shift | --irqoff]: IN with an `attribution` section.

The attribution values are SYNTHETIC: the real recorder and analysis come with
`rtsoak run --trace` (src/trace/).  This only makes a consistent section, as
docs/report-schema.json describes it, for the views' tests (text, HTML, JSON round
trip, compare, the periodicity culprit): it uses the report's real logged spike times,
so that the culprit rtsoak computes from spike_causes is matched against real spikes.

Per series (phase "all"): the spikes within 5 ms of the grid of the series' first
periodic pattern (analysis.periodicity) are caused by "task:rtsoak-spike/0 (FIFO 99)",
but the third, which is not attributed (events lost);
of the others, the first is "silent" (IRQs off), the second "softirq:TIMER" and any
further one is not attributed (events lost).  --shift swaps the roles (the grid's
spikes "silent", the others the task): a B side for compare whose causes moved.
--irqoff: every spike "silent" and attributed, recorded with stacks (--trace-stacks) as an
injected IRQs-off hold would be: the timer IRQ of the second spike of a series came in user
space ("user"), of the third "?", of the fourth __slab_free, of all others
rtsoak_irqoff_hold; the causes' irq_at tally counts the kernel functions only, as rtsoak does.
Each kept spike has the run queues at its deadline (top[].runnable, top[].cpus: runq and
other_cpus).
"""
import json
import sys

TASK = ("task:rtsoak-spike/0 (FIFO 99)", "task")
SILENT = ("silent", "silent")
SOFTIRQ = ("softirq:TIMER", "softirq")


def split(lat, kind):
    """A split (irq, thread, user) adding up to the latency."""
    if kind == "task":
        irq, user = 2000, 1500
    elif kind == "silent":
        irq, user = lat - 4000, 1000
    else:
        irq, user = lat // 2, 1200
    return irq, lat - irq - user, user


def contributors(cause, kind, lat):
    if kind == "task":
        return [{"kind": "task", "name": "rtsoak-spike/0", "pid": 812, "policy": "FIFO",
                 "priority": 99, "id": None, "ns": lat - 20000},
                {"kind": "vector", "name": "local_timer", "pid": None, "policy": None,
                 "priority": None, "id": 236, "ns": 3100}]
    if kind == "silent":
        return [{"kind": "silent", "name": "", "pid": None, "policy": None, "priority": None,
                 "id": None, "ns": lat - 5000}]
    return [{"kind": "softirq", "name": "TIMER", "pid": None, "policy": None,
             "priority": None, "id": 1, "ns": lat // 2}]


def verdict(kind, ns):
    ms = "%.2f ms" % (ns / 1e6)
    return {"task": "preempted by rtsoak-spike/0 (FIFO 99) for " + ms,
            "silent": "silent " + ms + ": no events (IRQs off in the kernel, an SMI or the "
                      "hypervisor)",
            "softirq": "softirq TIMER " + ms}[kind]


def irq_at_of(k):
    """--irqoff: where the timer IRQ of the series' k-th spike (from 0) came in."""
    return {1: "user", 2: "?", 3: "__slab_free"}.get(k, "rtsoak_irqoff_hold")


def runq(k):
    """The run queue at the k-th kept spike's deadline: the spike worker on the CPU, a
    SCHED_OTHER task waiting whose name needs escaping; the first spike's queue is
    truncated."""
    return [{"pid": 812, "name": "rtsoak-spike/0", "policy": "FIFO", "priority": 99,
             "running": True},
            {"pid": 4242, "name": "<b>make</b>", "policy": "OTHER", "priority": 0,
             "running": False}], k == 0


def other_cpus(k, cpu, cpus):
    """Every other measured CPU at the deadline: known on even spikes (kworker/1:2
    running there), not known on odd ones."""
    out = []
    for c in cpus:
        if c == cpu:
            continue
        known = k % 2 == 0
        out.append({"cpu": c, "known": known, "runnable_truncated": False,
                    "runnable": [{"pid": 90 + c, "name": "kworker/%d:2" % c, "policy": "OTHER",
                                  "priority": 0, "running": True}] if known else []})
    return out


def series_entry(rep, se, shift, irqoff=False, cpus=()):
    log = se["spike_log"]
    thr = log["threshold_ns"] or 0
    per = [p for p in rep["analysis"]["periodicity"]
           if p["probe"] == se["probe"] and p["cpu"] == se["cpu"]]
    pats = per[0]["patterns"] if per else []
    spikes = list(zip(log["t_ns"], log["latency_ns"]))
    causes, assigned, lost, others, grid = {}, [], 0, 0, 0
    for t, lat in spikes:
        on_grid = False
        if pats:
            P, ph = pats[0]["period_ns"], pats[0]["phase_ns"]
            k = round((t - ph) / P)
            on_grid = abs(t - ph - k * P) <= 5000000
        if irqoff:
            c = SILENT
        elif on_grid:
            grid += 1
            c = None if grid == 3 else SILENT if shift else TASK
        else:
            others += 1
            c = (TASK if shift else SILENT) if others == 1 else SOFTIRQ if others == 2 else None
        if c is None:
            lost += 1
            continue
        e = causes.setdefault(c, {"cause": c[0], "kind": c[1], "spikes": 0, "excess_ns": 0})
        e["spikes"] += 1
        e["excess_ns"] += max(lat - thr, 0)
        if irqoff:
            at = e.setdefault("irq_at", {})
            fn = irq_at_of(len(assigned))
            if fn not in ("user", "?"):
                at[fn] = at.get(fn, 0) + 1
        assigned.append((t, lat, c))
    order = sorted(causes.values(), key=lambda e: (-e["excess_ns"], e["cause"]))
    total = sum(e["excess_ns"] for e in order) or 1
    for e in order:
        e["share"] = round(e["excess_ns"] / total, 4)
        if irqoff:
            at = e.pop("irq_at", {})
            e["irq_at"] = [{"function": f, "spikes": n}
                           for f, n in sorted(at.items(), key=lambda x: (-x[1], x[0]))]
            e["irq_at_other"] = 0
    index = {(e["cause"], e["kind"]): i for i, e in enumerate(order)}
    top = []
    ranked = sorted(enumerate(assigned), key=lambda x: -x[1][1])[:5]
    for k, (t, lat, c) in ranked:
        irq, thread, user = split(lat, c[1])
        top.append({"t_ns": t, "latency_ns": lat, "irq_ns": irq, "thread_ns": thread,
                    "user_ns": user, "cause": c[0], "verdict": verdict(c[1], lat - 20000),
                    "contributors": contributors(c[0], c[1], lat)})
        q, more = runq(k)
        top[-1].update({"runnable": q, "runnable_truncated": more,
                        "cpus": other_cpus(k, se["cpu"], cpus), "cpus_truncated": False})
        if irqoff:
            top[-1]["irq_at"] = irq_at_of(k)
    return {"probe": se["probe"], "cpu": se["cpu"], "phase": "all", "threshold_ns": thr,
            "spikes": len(spikes), "attributed": len(assigned),
            "not_attributed": {"events_lost": lost, "no_events": 0, "no_anchor": 0},
            "causes": order, "spike_causes": [[t, index[c]] for t, _, c in assigned],
            "top": top}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    shift = "--shift" in sys.argv
    irqoff = "--irqoff" in sys.argv
    src, dst = args
    rep = json.load(open(src))
    series = [se for se in rep.get("series", []) if se["spike_log"]["threshold_ns"]]
    rep["attribution"] = {
        "tracer": {"instance": "rtsoak-1234", "clock": "mono", "buffer_kb": 4096,
                   "window_ms": 200, "stacks": irqoff,
                   "events": ["sched:sched_switch", "sched:sched_waking",
                              "irq:irq_handler_entry", "irq:irq_handler_exit"]},
        "cpus": [{"cpu": se["cpu"], "events": 123456, "lost": 0} for se in series],
        "series": [series_entry(rep, se, shift, irqoff, sorted({x["cpu"] for x in series}))
                   for se in series],
    }
    with open(dst, "w") as f:
        json.dump(rep, f, indent=2)
        f.write("\n")


main()
