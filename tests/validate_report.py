#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Validate rtsoak reports against docs/report-schema.json and check the
invariants a schema cannot express.  Usage: validate_report.py SCHEMA FILE...
Exit 0 when every file is valid; prints one line per problem otherwise."""
import json
import sys

import jsonschema


def reject_constant(name):
    raise ValueError("non-JSON number %s" % name)


def invariants(rep):
    for key in ("results", "aggregates"):
        for i, r in enumerate(rep[key]):
            where = "%s[%d]" % (key, i)
            total = sum(b[2] for b in r["histogram"])
            if total != r["count"]:
                yield "%s: histogram holds %d samples, count is %d" % (where, total, r["count"])
            if r["count"] == 0:
                stats = [k for k in r if k.endswith("_ns") and r[k] is not None]
                if stats:
                    yield "%s: count 0 but %s not null" % (where, stats)
                continue
            chain = [r["min_ns"], r["p50_ns"], r["p90_ns"], r["p99_ns"], r["p99_9_ns"],
                     r["p99_99_ns"], r["p99_999_ns"], r["max_ns"]]
            if chain != sorted(chain):
                yield "%s: min <= percentiles <= max does not hold: %s" % (where, chain)
            if not r["min_ns"] <= r["mean_ns"] <= r["max_ns"]:
                yield "%s: mean outside [min, max]" % where
            lowers = [b[0] for b in r["histogram"]]
            if lowers != sorted(set(lowers)) or any(b[0] >= b[1] for b in r["histogram"]):
                yield "%s: histogram buckets not ascending or empty" % where
            if r["histogram"] and not (r["histogram"][0][0] <= r["min_ns"] and
                                       r["max_ns"] < r["histogram"][-1][1]):
                yield "%s: min/max outside the histogram's range" % where
            lat = [t["latency_ns"] for t in r["top"]]
            if lat != sorted(lat, reverse=True) or (lat and lat[0] != r["max_ns"]):
                yield "%s: top list not sorted or not headed by max" % where


def series_invariants(rep):
    final = rep["run"]["status"] != "running"
    logged_apart = "series_log" in rep
    if logged_apart and final:
        yield "a series_log in a report whose status is not running"
    for i, se in enumerate(rep.get("series", [])):
        where = "series[%d] (%s cpu %d)" % (i, se["probe"], se["cpu"])
        iv, log = se["intervals"], se["spike_log"]
        if logged_apart:
            # A checkpoint's summary: the columns are in its series log, none here.
            if iv["n"] or log["logged"] or any(iv[k] for k in ("count", "max_ns", "spikes",
                                                              "missed")):
                yield "%s: columns of its own beside the series log" % where
            continue
        if any(len(iv[k]) != iv["n"] for k in ("count", "max_ns", "spikes", "missed")):
            yield "%s: interval columns are not n long" % where
            continue
        if any(len(log[k]) != log["logged"] for k in ("t_ns", "latency_ns", "phase")):
            yield "%s: spike log columns are not logged long" % where
            continue
        res = [r for r in rep["results"] if r["probe"] == se["probe"] and r["cpu"] == se["cpu"]]
        whole = [r for r in res if r["phase"] == "all"] or res
        if len(whole) != 1:
            yield "%s: no single result for the whole run" % where
            continue
        whole = whole[0]
        counted = sum(iv["count"])
        # A checkpoint holds the intervals closed so far; the end holds all.  Read with its
        # series log, a checkpoint's series can reach past its statistics (series_until_ns):
        # then they may count more, and see a larger max, than the results.
        beyond = "series_until_ns" in rep["run"]
        if (counted > whole["count"] and not beyond) or (final and counted != whole["count"]):
            yield "%s: intervals count %d samples, the result %d" % (where, counted,
                                                                       whole["count"])
        if final and sum(iv["missed"]) != whole["missed"]:
            yield "%s: intervals miss %d, the result %d" % (where, sum(iv["missed"]),
                                                             whole["missed"])
        if whole["count"] and max(iv["max_ns"] or [0]) > whole["max_ns"] and not beyond:
            yield "%s: an interval max exceeds the result's max" % where
        if final and whole["count"] and max(iv["max_ns"]) != whole["max_ns"]:
            yield "%s: the largest interval max is not the result's max" % where
        if any(m and not c for m, c in zip(iv["max_ns"], iv["count"])):
            yield "%s: an empty interval has a max" % where
        if sum(iv["spikes"]) != log["total"]:
            yield "%s: intervals hold %d spikes, the log total is %d" % (
                where, sum(iv["spikes"]), log["total"])
        if final and log["total"] != log["logged"] + log["overwritten"] + log["not_logged"]:
            yield "%s: spike total != logged + overwritten + not_logged" % where
        thr = log["threshold_ns"]
        if log["logged"] and (thr is None or min(log["latency_ns"]) <= thr):
            yield "%s: a logged spike is not above the threshold" % where
        if log["t_ns"] != sorted(log["t_ns"]):
            yield "%s: spike log not in time order" % where
        nph = len(rep["config"]["phases"])
        if any(p >= nph for p in log["phase"]):
            yield "%s: a spike's phase index is out of range" % where
        yield from quantile_invariants(rep, se, where, whole, final, beyond)


def quantile_invariants(rep, se, where, whole, final, beyond):
    """Per-interval quantiles (issue 30): every sample in one of them, in
    order, within the result's range (bucket midpoints: 0.4 %)."""
    q = se.get("quantiles")
    if q is None:
        return
    cols = ("count", "p50_ns", "p99_ns", "p99_9_ns")
    if any(len(q[k]) != q["n"] for k in cols):
        yield "%s: quantile columns are not n long" % where
        return
    if final and sum(q["count"]) != whole["count"]:
        yield "%s: quantiles count %d samples, the result %d" % (where, sum(q["count"]),
                                                                   whole["count"])
    base = rep["config"].get("series_interval_ns")
    if base and (q["interval_ns"] % base or (q["interval_ns"] // base) & (q["interval_ns"] // base - 1)):
        yield "%s: quantile interval %d is not series_interval_ns x 2^k" % (where, q["interval_ns"])
    for i, (c, a, b, d) in enumerate(zip(*(q[k] for k in cols))):
        if not c and (a or b or d):
            yield "%s: quantile interval %d has no samples but quantiles" % (where, i)
            return
        if c and not a <= b <= d:
            yield "%s: quantile interval %d: p50 %d, p99 %d, p99.9 %d out of order" % (
                where, i, a, b, d)
            return
        if c and d > whole["max_ns"] * 1.004 + 1 and not beyond:
            yield "%s: quantile interval %d: p99.9 %d above the result's max" % (where, i, d)
            return


def main():
    schema = json.load(open(sys.argv[1]))
    validator = jsonschema.Draft202012Validator(schema)
    bad = 0
    for path in sys.argv[2:]:
        try:
            with open(path) as f:
                rep = json.load(f, parse_constant=reject_constant)
        except (OSError, ValueError) as e:
            print("%s: %s" % (path, e))
            bad += 1
            continue
        errors = list(validator.iter_errors(rep))
        for e in errors[:10]:
            print("%s: %s: %s" % (path, "/".join(str(p) for p in e.absolute_path), e.message))
        problems = list(invariants(rep)) + list(series_invariants(rep)) if not errors else []
        for p in problems:
            print("%s: %s" % (path, p))
        bad += bool(errors or problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
