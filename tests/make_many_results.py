#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make_many_results.py TEMPLATE.json OUT.json [--results N]

Write an rtsoak report with N results (default 100 000) for the readers'
memory and speed checks (issue 12 item 7; bench/readers.sh and
tests/integration/safety_readers.sh): the template's header (tool, run,
config, system), then the timer probe on CPUs 0..999 in N/1000 phases
("p0", "p1", ...).  Every third result recorded samples, in 1 to 4
histogram buckets with one top sample; the others are empty, as the
results of a phase a CPU never ran in are.  One aggregate per phase, no
series.  Each result is consistent the way json_read.c checks it
(histogram totals equal count, min <= percentiles <= max), so the file
reads and compares without error.  Deterministic.
"""
import argparse
import json

from histogram_layout import index, lower, upper

PCTS = ["p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "p99_99_ns", "p99_999_ns"]
NULLS = ["min_ns", "mean_ns", "stddev_ns", "max_ns", "max_at_ns"] + PCTS


def result(cpu, phase, k):
    r = {"probe": "timer", "cpu": cpu, "phase": phase}
    if k % 3:
        r.update(count=0, missed=0, **{key: None for key in NULLS}, top=[], histogram=[])
        return r
    nb = 1 + k % 4
    base = 20000 + 37 * (k % 1000)
    buckets = []
    v = base
    for j in range(nb):
        i = index(v)
        buckets.append([lower(i), upper(i), 10 + j])
        v = upper(i) + 1000
    n = sum(b[2] for b in buckets)
    lo, hi = buckets[0][0], buckets[-1][1] - 1
    mid = lower(index(lo)) + (upper(index(lo)) - lower(index(lo)) - 1) // 2
    pct = [max(lo, min(hi, mid))] * 5 + [hi]
    r.update(count=n, missed=0, min_ns=lo, mean_ns=(lo + hi) // 2, stddev_ns=(hi - lo) // 4,
             max_ns=hi, max_at_ns=1000000, **dict(zip(PCTS, pct)),
             top=[{"t_ns": 1000000, "latency_ns": hi}], histogram=buckets)
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("template")
    ap.add_argument("out")
    ap.add_argument("--results", type=int, default=100000)
    a = ap.parse_args()
    with open(a.template) as f:
        rep = json.load(f)
    nphases = max(1, (a.results + 999) // 1000)
    phases = ["p%d" % p for p in range(nphases)]
    rep["results"] = [result(k % 1000, phases[k // 1000], k) for k in range(a.results)]
    rep["aggregates"] = []
    for p in phases:
        agg = result("all", p, 1)  # empty: an aggregate need not be recomputed here
        rep["aggregates"].append(agg)
    rep["phases"] = [{"name": p, "loads": []} for p in phases]
    rep["config"]["phases"] = phases
    rep.pop("series", None)
    rep.pop("analysis", None)
    with open(a.out, "w") as f:
        json.dump(rep, f)
        f.write("\n")


if __name__ == "__main__":
    main()
