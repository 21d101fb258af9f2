# SPDX-License-Identifier: GPL-2.0-or-later
"""latency_stats.py NAME=KIND:PATH...: min, p50, p99, max and count of each
tool's latencies in ns, one definition for all, as a JSON object by NAME.

The lab's fidelity comparison (tests/lab/lab_fidelity.sh in the guest,
bench/lab-fidelity.sh on the host) puts three tools side by side; each has
its own percentile arithmetic and resolution, so all of them are read from
their histograms here and ranked the same way: nearest rank, the sample of
rank ceil(p/100 * n), its bucket's midpoint where a bucket is wider than
1 ns.

KIND:
  rtsoak       an rtsoak report (its timer result: log-linear buckets,
               16 ns wide between 2 and 4 us, so percentiles are +-8 ns)
  cyclictest   cyclictest -N -h US --histfile=PATH: with -N the histogram's
               index is the latency in ns (1 ns buckets up to US ns), exact
  rtla-thread  `rtla timerlat hist -n` output, the Thr column (1 ns buckets)
  rtla-irq     the same, the IRQ column
"""
import json
import math
import re
import sys


def percentile(buckets, n, p):
    """buckets: sorted (lo, hi, count), hi exclusive; nearest rank."""
    rank = max(1, math.ceil(p / 100.0 * n))
    seen = 0
    for lo, hi, c in buckets:
        seen += c
        if seen >= rank:
            return lo if hi - lo <= 1 else (lo + hi) / 2.0
    return None


def summary(buckets, n, lo, hi):
    return {"n": n, "min": lo, "max": hi,
            "p50": percentile(buckets, n, 50), "p99": percentile(buckets, n, 99)}


def rtsoak(path):
    r = [x for x in json.load(open(path))["results"] if x["probe"] == "timer"]
    if len(r) != 1:
        sys.exit("%s: expected one timer result, found %d" % (path, len(r)))
    r = r[0]
    b = [tuple(x) for x in r["histogram"]]
    return summary(b, r["count"], r["min_ns"], r["max_ns"])


def cyclictest(path):
    b, mn, mx, over = [], None, None, 0
    for line in open(path):
        m = re.match(r"^(\d+)\s+(\d+)\s*$", line)
        if m:
            if int(m.group(2)):
                v = int(m.group(1))
                b.append((v, v + 1, int(m.group(2))))
            continue
        m = re.match(r"^# (Min|Max) Latencies:\s+(\d+)", line)
        if m:
            if m.group(1) == "Min":
                mn = int(m.group(2))
            else:
                mx = int(m.group(2))
        m = re.match(r"^# Histogram Overflows:\s+(\d+)", line)
        if m:
            over = int(m.group(1))
    if not b or mx is None:
        sys.exit("%s: no cyclictest histogram (-h with --histfile)" % path)
    if over:  # beyond the histogram: ranked at the max
        b.append((mx, mx + 1, over))
    return summary(b, sum(c for _, _, c in b), mn, mx)


def rtla(path, col):
    b, info = [], {}
    for line in open(path):
        f = line.split()
        if len(f) >= 3 and f[0].isdigit():
            c = int(f[col])
            if c:
                v = int(f[0])
                b.append((v, v + 1, c))
        elif len(f) >= 3 and f[0] in ("over:", "count:", "min:", "max:"):
            info[f[0][:-1]] = int(f[col])
    if not b or "count" not in info:
        sys.exit("%s: no rtla timerlat hist output" % path)
    if info.get("over"):
        b.append((info["max"], info["max"] + 1, info["over"]))
    return summary(b, info["count"], info["min"], info["max"])


KINDS = {
    "rtsoak": rtsoak,
    "cyclictest": cyclictest,
    "rtla-irq": lambda p: rtla(p, 1),
    "rtla-thread": lambda p: rtla(p, 2),
}


def main(argv):
    if not argv:
        sys.exit(__doc__)
    out = {}
    for a in argv:
        m = re.match(r"^([^=:]+)=([\w-]+):(.+)$", a)
        if not m or m.group(2) not in KINDS:
            sys.exit("latency_stats.py: bad argument %r (NAME=KIND:PATH, KIND one of %s)"
                     % (a, ", ".join(KINDS)))
        out[m.group(1)] = KINDS[m.group(2)](m.group(3))
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv[1:])
