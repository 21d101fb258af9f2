#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make_huge_report.py TEMPLATE.json OUT.json [--cpus N] [--intervals N]

Write a schema-valid rtsoak report of a long soak on a big machine: the
timer probe on N CPUs (default 64), N intervals of 1 s each (default
10 000, a 2.8 h run), two rotating phases (idle and cpu, 1000 s each),
per-phase and whole-run results and aggregates, a spike log and the
analysis section.  The HTML view must stay small and fast on it (the
tests check < 5 MB and the browser's rendering time) and must still show
every series' maximum.

The template (a real report of this machine) gives the system snapshot,
tool and configuration; everything measured is synthetic but consistent
the way tests/validate_report.py checks: histogram totals equal counts,
percentiles are the nearest-rank bucket midpoints rtsoak computes, the
intervals add up to each result, the largest interval maximum is the
result's max, spikes are above the threshold.  Deterministic (fixed seed).
"""
import argparse
import json
import math
import random

from histogram_layout import OVERFLOW, SUB, SUB_BITS, TOP_BITS, index, lower, upper  # noqa: F401
PCTS = [(50, "p50_ns"), (90, "p90_ns"), (99, "p99_ns"), (99.9, "p99_9_ns"),
        (99.99, "p99_99_ns"), (99.999, "p99_999_ns")]
SEC = 10**9
INTERVAL = SEC
PHASE_LEN = 1000  # intervals per phase occurrence
THRESHOLD = 60_000  # spike threshold, ns
THRESHOLD_AT = 5 * SEC
PER_INTERVAL = 1000  # samples per interval: a 1 ms timer


def percentile(hist, p, lo, hi):
    """histogram_percentile() of src/histogram.c (nearest rank, bucket midpoint)."""
    n = sum(hist.values())
    rank = min(n, max(1, math.ceil(p / 100 * n)))
    if rank == n:
        return hi
    if rank == 1:
        return lo
    seen = 0
    for i in sorted(hist):
        seen += hist[i]
        if seen >= rank:
            v = lower(i) + (upper(i) - lower(i) - 1) // 2
            return min(max(v, lo), hi)
    return hi


def body_histogram(n, median, sigma):
    """n samples of a log-normal body below the spike threshold, as bucket counts."""
    def cdf(x):
        return 0.5 * (1 + math.erf((math.log(x) - math.log(median)) / (sigma * math.sqrt(2))))
    hist, mass = {}, []
    i = index(int(median * math.exp(-5 * sigma)))
    while lower(i) < THRESHOLD:
        w = cdf(min(upper(i), THRESHOLD)) - cdf(max(lower(i), 1))
        mass.append((i, w))
        i += 1
    total = sum(w for _, w in mass)
    for i, w in mass:
        c = int(w / total * n)
        if c:
            hist[i] = c
    mode = max(hist, key=hist.get)
    hist[mode] += n - sum(hist.values())
    return hist


def result(probe, cpu, phase, hist, missed, top, counters=None):
    n = sum(hist.values())
    r = {"probe": probe, "cpu": cpu, "phase": phase, "count": n, "missed": missed}
    if counters:
        r["counters"] = counters
    if not n:
        r.update({k: None for k in ("min_ns", "mean_ns", "stddev_ns", "max_ns", "max_at_ns")})
        r.update({k: None for _, k in PCTS})
        r.update(top=[], histogram=[])
        return r
    idx = sorted(hist)
    lo, hi = top["min"], top["max"]
    mids = [(lower(i) + upper(i)) / 2 for i in idx]
    mean = sum(m * hist[i] for m, i in zip(mids, idx)) / n
    var = sum((m - mean) ** 2 * hist[i] for m, i in zip(mids, idx)) / n
    r.update(min_ns=lo, mean_ns=min(max(int(mean), lo), hi), stddev_ns=int(math.sqrt(var)),
             max_ns=hi, max_at_ns=top["max_at"])
    for p, k in PCTS:
        r[k] = percentile(hist, p, lo, hi)
    r["top"] = [{"t_ns": t, "latency_ns": v} for v, t in top["list"]]
    r["histogram"] = [[lower(i), hi + 1 if i == OVERFLOW else upper(i), hist[i]] for i in idx]
    return r


def merge_top(tops):
    lst = sorted((x for t in tops for x in t["list"]), key=lambda x: -x[0])[:32]
    best = max(tops, key=lambda t: t["max"])
    return {"min": min(t["min"] for t in tops), "max": best["max"],
            "max_at": best["max_at"], "list": lst}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("template")
    ap.add_argument("out")
    ap.add_argument("--cpus", type=int, default=64)
    ap.add_argument("--intervals", type=int, default=10000)
    a = ap.parse_args()
    rnd = random.Random(20261201)
    rep = json.load(open(a.template))
    ncpu, nint = a.cpus, a.intervals
    duration = nint * INTERVAL
    phases = ["idle", "cpu:load=50"]
    phase_of = [(k // PHASE_LEN) % 2 for k in range(nint)]

    results, aggs, series = [], [], []
    per_phase = {ph: [] for ph in phases + ["all"]}  # (hist, missed, top) per CPU
    worst = []  # (max, cpu, k)
    spikes_all = []
    periodicity = []
    for cpu in range(ncpu):
        # Tail samples above the threshold, at random times after the warm-up;
        # CPU 3 also has a spike every 60 s (a periodic disturbance).
        tail = []
        for _ in range(rnd.randint(300, 1500)):
            t = rnd.randrange(THRESHOLD_AT, duration)
            tail.append((t, int(THRESHOLD * (1 + rnd.paretovariate(1.6)))))
        if cpu == 3:
            for t in range(30 * SEC, duration, 60 * SEC):
                tail.append((t + rnd.randrange(0, 2_000_000), rnd.randrange(300_000, 400_000)))
        tail.sort()
        big = max(range(len(tail)), key=lambda i: tail[i][1])
        # One clear worst case per CPU, 1.5 to 9 ms.
        tail[big] = (tail[big][0], rnd.randrange(1_500_000, 9_000_000) + cpu)
        counts = [PER_INTERVAL] * nint
        missed = [1 if rnd.random() < 0.002 else 0 for _ in range(nint)]
        spikes = [0] * nint
        imax = [0] * nint
        tail_hist = {ph: {} for ph in phases}
        tail_top = {ph: [] for ph in phases}
        for t, v in tail:
            k = t // INTERVAL
            spikes[k] += 1
            imax[k] = max(imax[k], v)
            ph = phases[phase_of[k]]
            tail_hist[ph][index(v)] = tail_hist[ph].get(index(v), 0) + 1
            tail_top[ph].append((v, t))
        median = 4000 + 150 * (cpu % 8)
        bodies = {}
        for p, ph in enumerate(phases):
            n_ph = sum(counts[k] for k in range(nint) if phase_of[k] == p)
            n_tail = sum(tail_hist[ph].values())
            bodies[ph] = body_histogram(n_ph - n_tail, median * (1 + 0.4 * p), 0.3 + 0.05 * p)
        # Interval maxima of the body: near its top.
        bmax = max(lower(max(b)) for b in bodies.values())
        for k in range(nint):
            imax[k] = max(imax[k], rnd.randrange(bmax * 6 // 10, bmax + 1))
        whole, tops = {}, {}
        for p, ph in enumerate(phases):
            h = dict(bodies[ph])
            for i, c in tail_hist[ph].items():
                h[i] = h.get(i, 0) + c
            # The body maxima that became interval maxima are samples too: they
            # are counted inside the body (their buckets lie below the threshold).
            mn = lower(min(h))
            lst = sorted(tail_top[ph], key=lambda x: -x[0])[:32]
            top = {"min": mn, "max": lst[0][0], "max_at": lst[0][1], "list": lst}
            ms = sum(missed[k] for k in range(nint) if phase_of[k] == p)
            per_phase[ph].append((h, ms, top))
            results.append(result("timer", cpu, ph, h, ms, top))
            for i, c in h.items():
                whole[i] = whole.get(i, 0) + c
            tops[ph] = top
        wtop = merge_top(list(tops.values()))
        per_phase["all"].append((whole, sum(missed), wtop))
        results.append(result("timer", cpu, "all", whole, sum(missed), wtop))
        assert max(imax) == wtop["max"]
        # The series and its spike log.
        log_t = [t for t, _ in tail]
        series.append({
            "probe": "timer", "cpu": cpu, "interval_ns": INTERVAL, "stalls": 0,
            "intervals": {"n": nint, "count": counts, "max_ns": imax, "spikes": spikes,
                          "missed": missed},
            "spike_log": {"threshold_ns": THRESHOLD, "threshold_at_ns": THRESHOLD_AT,
                          "total": len(tail), "logged": len(tail), "overwritten": 0,
                          "not_logged": 0, "t_ns": log_t, "latency_ns": [v for _, v in tail],
                          "phase": [phase_of[t // INTERVAL] for t in log_t]},
        })
        worst += [(imax[k], cpu, k) for k in range(nint)]
        spikes_all += [(v, cpu, t) for t, v in tail]
        per = {"probe": "timer", "cpu": cpu, "source": "spike log", "events": len(tail),
               "verdict": "no periodic pattern", "patterns": []}
        if cpu == 3:
            cyc = (duration - 30 * SEC) // (60 * SEC) + 1
            per["verdict"] = "periodic"
            per["patterns"] = [{"period_ns": 60 * SEC, "jitter_ns": 580_000,
                                "phase_ns": 30 * SEC + 1_000_000,
                                "explained": round(cyc / len(tail), 4), "matched": cyc,
                                "cycles": cyc, "cycles_hit": cyc, "log10_p": -250.0}]
        periodicity.append(per)
    for ph in phases + ["all"]:
        h = {}
        for hh, _, _ in per_phase[ph]:
            for i, c in hh.items():
                h[i] = h.get(i, 0) + c
        top = merge_top([t for _, _, t in per_phase[ph]])
        aggs.append(result("timer", "all", ph, h, sum(m for _, m, _ in per_phase[ph]), top))

    def interval(cpu, k):
        iv = series[cpu]["intervals"]
        return {"index": k, "start_ns": k * INTERVAL, "end_ns": (k + 1) * INTERVAL,
                "count": iv["count"][k], "max_ns": iv["max_ns"][k],
                "spikes": iv["spikes"][k], "missed": iv["missed"][k]}
    worst.sort(key=lambda x: (-x[0], x[1], x[2]))
    spikes_all.sort(key=lambda x: (-x[0], x[1], x[2]))
    analysis = {
        "periodicity": periodicity,
        "worst_intervals": [dict(probe="timer", cpu=c, **interval(c, k)) for _, c, k in worst[:10]],
        "top_spikes": [{"probe": "timer", "cpu": c, "t_ns": t, "latency_ns": v,
                        "phase": phases[phase_of[t // INTERVAL]],
                        "interval": interval(c, t // INTERVAL)} for v, c, t in spikes_all[:10]],
    }
    occ = [[], []]
    for s in range(0, nint, PHASE_LEN):
        occ[phase_of[s]].append([s * INTERVAL, min(s + PHASE_LEN, nint) * INTERVAL])
    zero = [0] * ncpu
    rep["phases"] = [{"name": ph, "loads": [] if p == 0 else [ph],
                      "time_ns": sum(e - s for s, e in occ[p]), "occurrences": occ[p],
                      "system": {"interrupts": {"LOC": zero}, "softirqs": {"TIMER": zero},
                                 "cpu_time_ns": {"idle": zero, "irq": zero, "softirq": zero,
                                                 "steal": zero},
                                 "cpuidle": {}, "context_switches": 0}}
                     for p, ph in enumerate(phases)]
    cfg = rep["config"]
    cfg.update(cpus="0-%d" % (ncpu - 1), probes=["timer"], duration_ns=duration, loops=None,
               phases=phases, loads=[phases[1]], schedule="rotate",
               phase_duration_ns=PHASE_LEN * INTERVAL, series_interval_ns=INTERVAL)
    rep["system"].setdefault("cpus", {})["online"] = "0-%d" % (ncpu - 1)
    rep["loads"] = []
    rep["run"].update(duration_ns=duration, status="complete", realtime=True,
                      warnings=["synthetic report (tests/make_huge_report.py)"])
    rep["results"], rep["aggregates"] = results, aggs
    rep["series"], rep["analysis"] = series, analysis
    rep.pop("ab", None)
    json.dump(rep, open(a.out, "w"), separators=(",", ":"))


if __name__ == "__main__":
    main()
