#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""shift_report.py IN OUT DELTA_NS [--drop-series]

Write a copy of an rtsoak report in which every latency is DELTA_NS larger
(negative: smaller): min, mean, percentiles, max, top lists, histograms,
per-interval maxima and quantiles, spike latencies and thresholds.  Counts, times and
missed stay as they are.  The copy is a valid report (the tests validate
it), so `rtsoak compare IN OUT` must find B worse by DELTA_NS.  With
--drop-series the copy has no time series (the order-statistic fallback).
"""
import json
import sys

from histogram_layout import OVERFLOW, SUB, SUB_BITS, TOP_BITS, index, lower, upper  # noqa: F401


def shift_result(r, d):
    if not r["count"]:
        return
    for k in [k for k in r if k.endswith("_ns") and k != "max_at_ns"]:
        if r[k] is not None and k != "stddev_ns":
            r[k] = max(0, r[k] + d)
    for t in r["top"]:
        t["latency_ns"] = max(0, t["latency_ns"] + d)
    counts = {}
    for lo, _, c in r["histogram"]:
        i = index(max(0, lo + d))
        counts[i] = counts.get(i, 0) + c
    # The last bucket must still hold max (a bucket's lower bound moved by d
    # can land in a bucket that ends below max + d).
    last, want = max(counts), index(r["max_ns"])
    if last < want:
        counts[want] = counts.get(want, 0) + counts.pop(last)
    r["histogram"] = [[lower(i), upper(i, r["max_ns"]), c] for i, c in sorted(counts.items())]


def main():
    src, dst, d = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rep = json.load(open(src))
    for key in ("results", "aggregates"):
        for r in rep[key]:
            shift_result(r, d)
    if "--drop-series" in sys.argv[4:]:
        rep.pop("series", None)
        rep.pop("analysis", None)
    for se in rep.get("series", []):
        iv, log = se["intervals"], se["spike_log"]
        iv["max_ns"] = [m + d if c else 0 for m, c in zip(iv["max_ns"], iv["count"])]
        log["latency_ns"] = [x + d for x in log["latency_ns"]]
        q = se.get("quantiles")
        for k in ("p50_ns", "p99_ns", "p99_9_ns") if q else ():
            q[k] = [max(0, x + d) if c else 0 for x, c in zip(q[k], q["count"])]
        if log["threshold_ns"] is not None:
            log["threshold_ns"] += d
    # analysis holds derived figures; drop what no longer matches rather
    # than shift it half-way.
    rep.pop("analysis", None)
    json.dump(rep, open(dst, "w"), indent=2)


main()
