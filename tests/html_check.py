#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""html_check.py PAGE.html REPORT.json
   html_check.py PAGE.html COMPARE.json --compare A.json B.json

Check an rtsoak HTML page against the report it was made from (an rtsoak
report or a cyclictest --json file), or a compare page against the
comparison's --json output and its two reports.  Prints one line per
problem and exits 1 if there is any.

What is checked: the page parses and every element is closed (void
elements aside); nothing is loaded from outside (no src/href to a URL, no
stylesheet link, no script src, no url() in CSS); no NaN or infinity; one
<svg data-plot=...> per expected plot and no other; each plot's lines are
the report's data, by their data attributes and by their geometry (the
scales are on the <svg>); the headline, summary table, banner and warnings
say what the report says.
"""
import html.parser
import json
import math
import re
import sys
from fractions import Fraction

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
from histogram_layout import OVERFLOW, SUB, SUB_BITS, TOP_BITS, index, lower, upper  # noqa: F401
PCTS = [(50, "p50_ns"), (90, "p90_ns"), (99, "p99_ns"), (99.9, "p99_9_ns"),
        (99.99, "p99_99_ns"), (99.999, "p99_999_ns")]
LEFT, RIGHT = 76, 926  # reports/svg.h: SVG_LEFT, SVG_RIGHT
COLUMNS = RIGHT - LEFT
TOL = 0.11  # coordinates are printed with one decimal

problems = []


def bad(msg):
    problems.append(msg)


# ------------------------------------------------------------ parsing --

class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.children, self.text = [], []

    def all_text(self):
        out = list(self.text)
        for c in self.children:
            out.append(c.all_text())
        return "".join(out)

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()

    def find(self, tag=None, **attrs):
        for n in self.walk():
            if (tag is None or n.tag == tag) and all(
                    n.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items()):
                yield n


class Parser(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {}, None)
        self.cur = self.root
        self.scripts = []

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        self.check_attrs(tag, n.attrs)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        self.check_attrs(tag, n.attrs)

    def handle_endtag(self, tag):
        if tag in VOID:
            bad("end tag for void element </%s> at %s" % (tag, self.getpos()))
            return
        if self.cur.tag != tag:
            bad("</%s> closes <%s> at line %d" % (tag, self.cur.tag, self.getpos()[0]))
            # resynchronise on the nearest open element of that name
            n = self.cur
            while n is not None and n.tag != tag:
                n = n.parent
            if n is None:
                return
            self.cur = n
        self.cur = self.cur.parent

    def handle_data(self, data):
        self.cur.text.append(data)
        if self.cur.tag == "script":
            self.scripts.append(data)
        if self.cur.tag == "style" and re.search(r"url\(|@import", data):
            bad("stylesheet loads something: %r" % data[:80])

    def check_attrs(self, tag, a):
        for k in ("src", "href", "xlink:href", "action", "data", "poster", "srcset"):
            v = a.get(k)
            if v is None:
                continue
            if tag == "a" and k == "href" and v.startswith("#"):
                continue
            bad("<%s %s=%r>: the page must not load or link anything" % (tag, k, v))
        if tag == "link":
            bad("<link %s>: no external stylesheets or icons" % a)
        if tag in ("iframe", "object", "embed", "img", "video", "audio"):
            bad("<%s>: not expected in the page" % tag)
        if "style" in a and re.search(r"url\(", a["style"]):
            bad("style attribute loads something: %r" % a["style"])


def parse_page(path):
    raw = open(path, encoding="utf-8").read()
    p = Parser()
    p.feed(raw)
    p.close()
    if p.cur is not p.root:
        chain = []
        n = p.cur
        while n is not p.root:
            chain.append(n.tag)
            n = n.parent
        bad("elements left open at the end: %s" % chain)
    if not raw.lstrip().lower().startswith("<!doctype html>"):
        bad("no <!DOCTYPE html>")
    # A number token (not part of a word or file name such as cyclictest-nan.json), in
    # what the page computed: warnings and the command line are the report's own words.
    def ours(n):
        if n.tag == "code" or (n.tag == "li" and n.attrs.get("class") == "warning"):
            return
        yield from n.attrs.values()
        yield from n.text
        for c in n.children:
            yield from ours(c)
    for t in ours(p.root):
        m = re.search(r"(?i)(?<![\w.-])[-+]?(nan|inf|infinity)(?![\w.-])", t or "")
        if m:
            bad("non-number in the page: %r" % t[max(0, m.start() - 40):m.end() + 40])
            break
    for s in p.scripts:
        if "http" in s or "fetch(" in s or "XMLHttpRequest" in s or "import" in s:
            bad("script reaches out: %r" % s[:80])
    return p.root, raw


# --------------------------------------------------------- histograms --

def percentile(buckets, p, lo, hi):
    """histogram_percentile() of src/histogram.c, over [lower, upper, count]."""
    n = sum(b[2] for b in buckets)
    rank = min(n, max(1, math.ceil(Fraction(p) / 100 * n)))
    if rank == n:
        return hi
    if rank == 1:
        return lo
    seen = 0
    for l, u, c in buckets:
        seen += c
        if seen >= rank:
            v = hi if l >= 1 << TOP_BITS else l + (u - l - 1) // 2
            return min(max(v, lo), hi)
    return hi


class Scale:
    def __init__(self, text):
        kind, lo, hi, p0, p1 = text.split()
        self.log, self.lo, self.hi, self.p0, self.p1 = kind == "log", float(lo), float(hi), \
            float(p0), float(p1)

    def px(self, v):
        if self.log:
            if not v > self.lo:
                return self.p0
            t = (math.log(v) - math.log(self.lo)) / (math.log(self.hi) - math.log(self.lo))
        else:
            t = (v - self.lo) / (self.hi - self.lo)
        t = min(max(t, 0), 1)
        return self.p0 + t * (self.p1 - self.p0)


def path_commands(d):
    """[(command, [numbers])] of an SVG path in absolute M/L/H/V/Z (implicit L after M)."""
    out = []
    for cmd, args in re.findall(r"([MLHVZhvz])([^MLHVZhvz]*)", d):
        nums = [float(x) for x in re.findall(r"-?[0-9]+(?:\.[0-9]+)?", args)]
        if cmd == "M" and len(nums) > 2:
            out.append(("M", nums[:2]))
            out.append(("L", nums[2:]))
        else:
            out.append((cmd, nums))
    return out


def vertices(d):
    """Every vertex of a path of M, implicit L and Z as (x, y) strings and floats."""
    pts = []
    for cmd, nums in path_commands(d):
        if cmd in "ML":
            for i in range(0, len(nums), 2):
                pts.append((nums[i], nums[i + 1]))
    return pts


def close(a, b, tol=TOL):
    return abs(a - b) <= tol


def check_histogram_path(where, path, buckets, xs, ys):
    """A step line: M lower base, then per bucket V count H upper, V base at gaps."""
    want = "".join("%d,%d,%d;" % tuple(b) for b in buckets)[:-1]
    if path.attrs.get("data-buckets") != want:
        bad("%s: data-buckets differ from the report's histogram" % where)
    base = ys.p0
    steps, x, y = [], None, None
    for cmd, nums in path_commands(path.attrs.get("d", "")):
        if cmd == "M":
            x, y = nums
        elif cmd == "V":
            y = nums[0]
        elif cmd == "H":
            steps.append((x, nums[0], y))
            x = nums[0]
    if len(steps) != len(buckets):
        bad("%s: %d steps drawn for %d buckets" % (where, len(steps), len(buckets)))
        return
    for (x0, x1, y), (lo, hi, c) in zip(steps, buckets):
        if not (close(x0, xs.px(max(lo, 0))) and close(x1, xs.px(hi)) and close(y, ys.px(c))):
            bad("%s: bucket [%d, %d) x %d drawn at x %s..%s y %s, want %.1f..%.1f y %.1f"
                % (where, lo, hi, c, x0, x1, y, xs.px(lo), xs.px(hi), ys.px(c)))
            return
        if close(y, base, 0.01):
            bad("%s: bucket [%d, %d) drawn on the baseline" % (where, lo, hi))


def check_exceedance_path(where, path, buckets, xs, ys):
    """M lower0 1, then per bucket H upper, V fraction of the samples from the next on."""
    total = sum(b[2] for b in buckets)
    if path.attrs.get("data-total") != str(total):
        bad("%s: data-total %s, the histogram holds %d" % (where, path.attrs.get("data-total"),
                                                           total))
    want, left = [("M", buckets[0][0], 1.0)], total
    for i, (lo, hi, c) in enumerate(buckets):
        if i:
            want.append(("V", None, left / total))
        want.append(("H", hi, None))
        left -= c
    got = path_commands(path.attrs.get("d", ""))
    if len(got) != len(want):
        bad("%s: %d path commands for %d buckets" % (where, len(got), len(buckets)))
        return
    for (gc, nums), (wc, x, fr) in zip(got, want):
        ok = gc == wc
        if ok and wc == "M":
            ok = close(nums[0], xs.px(max(x, 0))) and close(nums[1], ys.px(fr))
        elif ok and wc == "H":
            ok = close(nums[0], xs.px(x))
        elif ok:
            ok = close(nums[0], ys.px(fr))
        if not ok:
            bad("%s: exceedance step %s%s, want %s at %s/%s" % (where, gc, nums, wc, x, fr))
            return


def check_markers(where, svg, key, res, total, xs, ys):
    marks = {m.attrs.get("data-stat"): m for m in svg.find("circle")
             if m.attrs.get("data-series") == key}
    want = {"max_ns": (res["max_ns"], 1 / total)}
    for p, k in PCTS:
        if math.ceil(Fraction(p) / 100 * total) < total:
            want[k] = (res[k], 1 - p / 100)
    if set(marks) != set(want):
        bad("%s: markers %s, want %s" % (where, sorted(marks), sorted(want)))
        return
    for k, (ns, frac) in want.items():
        m = marks[k]
        if m.attrs.get("data-ns") != str(ns):
            bad("%s: marker %s is %s, the report says %s" % (where, k, m.attrs.get("data-ns"), ns))
        elif not (close(float(m.attrs["cx"]), xs.px(ns)) and close(float(m.attrs["cy"]),
                                                                     ys.px(frac))):
            bad("%s: marker %s drawn at (%s, %s), want (%.1f, %.1f)"
                % (where, k, m.attrs["cx"], m.attrs["cy"], xs.px(ns), ys.px(frac)))


def drawable(res):
    return res is not None and res["count"] > 0 and bool(res["histogram"]) and \
        not res.get("_unknown_pct")


# ------------------------------------------------------ the report page --

def cyclictest_model(ct):
    """The report model rtsoak's cyclictest import builds (reports/cyclictest_read.c), as far as
    the page shows it: per CPU count, min, max, histogram and percentiles; missed unknown."""
    scale = 1 if ct.get("resolution_in_ns") == 1 else 1000
    cmd = ct.get("cmdline:", ct.get("cmdline", ""))
    hist_opt = re.search(r"(^|\s)(-h\s*[0-9]|--histogram[= ][0-9]|-H\s*[0-9]|--histofall[= ][0-9])",
                         cmd)
    per = {}
    for t in ct["thread"].values():
        cpu = t.get("cpu")
        d = per.setdefault(cpu, {"count": 0, "min": None, "max": 0, "hist": {}, "nohist": False})
        cyc = t["cycles"]
        if not cyc:
            continue
        d["count"] += cyc
        mn, mx = t["min"] * scale, t["max"] * scale
        d["min"] = mn if d["min"] is None else min(d["min"], mn)
        d["max"] = max(d["max"], mx)
        h = t.get("histogram") or {}
        if not h and not hist_opt:
            d["nohist"] = True
        inh = 0
        for k, c in h.items():
            i = index(int(k) * scale + scale // 2)
            d["hist"][i] = d["hist"].get(i, 0) + c
            inh += c
        i = index(mx)
        d["hist"][i] = d["hist"].get(i, 0) + cyc - inh

    def res(cpu, d):
        r = {"probe": "timer", "cpu": cpu, "phase": "all", "count": d["count"], "missed": None,
             "_unknown_missed": True, "_unknown_pct": d["nohist"]}
        if not d["count"]:
            r.update(min_ns=None, max_ns=None, histogram=[], **{k: None for _, k in PCTS})
            return r
        hist = [] if d["nohist"] else [
            [lower(i), d["max"] + 1 if i == OVERFLOW else lower(i + 1), c]
            for i, c in sorted(d["hist"].items()) if c]
        r.update(min_ns=d["min"], max_ns=d["max"], histogram=hist)
        for p, k in PCTS:
            r[k] = None if d["nohist"] else percentile(hist, p, d["min"], d["max"])
        return r
    results = [res(cpu, d) for cpu, d in sorted(per.items())]
    agg = {"count": 0, "min": None, "max": 0, "hist": {}, "nohist": False}
    for d in per.values():
        if not d["count"]:
            continue
        agg["count"] += d["count"]
        agg["min"] = d["min"] if agg["min"] is None else min(agg["min"], d["min"])
        agg["max"] = max(agg["max"], d["max"])
        agg["nohist"] = agg["nohist"] or d["nohist"]
        for i, c in d["hist"].items():
            agg["hist"][i] = agg["hist"].get(i, 0) + c
    return {"run": {"status": "complete", "warnings": None}, "results": results,
            "aggregates": [res("all", agg)], "phases": [], "series": []}


def cell(res, key):
    if not res["count"]:
        return "–"
    if key != "min_ns" and key != "max_ns" and res.get("_unknown_pct"):
        return "?"
    return "%.1f" % (res[key] / 1000)


# ------------------------------------------------- many CPUs (issue 20) --

MANY, WORST = 16, 8  # src/model/report.h: REPORT_MANY_CPUS, REPORT_WORST_CPUS
LEVELS, MAXCOLS = 8, 120  # reports/html_internal.h: HTML_HEATMAP_LEVELS, _COLUMNS


def per_cpu(results):
    return [r for r in results if isinstance(r["cpu"], int) and r["cpu"] >= 0]


def worst_cpus(results, probe, phase="all"):
    """report_worst_cpus: by max, then p99.9 (unknown: 0), then the lower CPU; no samples last."""
    def key(r):
        if not r["count"]:
            return (1, 0, 0, r["cpu"])
        p999 = 0 if r.get("_unknown_pct") or r.get("p99_9_ns") is None else r["p99_9_ns"]
        return (0, -r["max_ns"], -p999, r["cpu"])
    rs = [r for r in per_cpu(results) if r["probe"] == probe and r["phase"] == phase]
    return [r["cpu"] for r in sorted(rs, key=key)[:WORST]]


def levels(values):
    """The colour step(s) each non-zero value may have on a log scale over them (a value within
    rounding of a step's bound may fall on either side)."""
    nz = [v for v in values if v]
    lo, hi = (min(nz), max(nz)) if nz else (0, 0)

    def ok(v):
        if not hi > lo:
            return {LEVELS - 1}
        t = math.log(v / lo) / math.log(hi / lo) * LEVELS
        return {min(LEVELS - 1, max(0, math.floor(t + d))) for d in (-1e-9, 0, 1e-9)}
    return ok


def cell_level(td):
    cls = [c for c in td.attrs.get("class", "").split() if re.fullmatch(r"q[0-9]+", c)]
    return int(cls[0][1:]) if len(cls) == 1 else None


def check_stat_map(probe, table, results):
    want = [r for r in per_cpu(results) if r["probe"] == probe and r["phase"] == "all"]
    rows = [tr for tr in table.find("tr") if "data-cpu" in tr.attrs]
    where = "overview %s statistics" % probe
    if [tr.attrs["data-cpu"] for tr in rows] != [str(r["cpu"]) for r in want]:
        bad("%s: rows for CPUs %s, want %s" % (where, [tr.attrs["data-cpu"] for tr in rows][:10],
                                                [r["cpu"] for r in want][:10]))
        return
    if table.attrs.get("data-cpus") != str(len(want)):
        bad("%s: data-cpus %s, %d CPUs" % (where, table.attrs.get("data-cpus"), len(want)))
    known = [r for r in want if r["count"]]
    scale = {"max_ns": levels([r["max_ns"] for r in known]),
             "p99_9_ns": levels([r["p99_9_ns"] for r in known if not r.get("_unknown_pct")]),
             "missed": levels([r["missed"] for r in known if not r.get("_unknown_missed")])}
    for tr, r in zip(rows, want):
        w = "%s CPU %d" % (where, r["cpu"])
        cells = {td.attrs.get("data-stat"): td for td in tr.find("td")}
        if sorted(cells) != ["max_ns", "missed", "p99_9_ns"]:
            bad("%s: cells %s" % (w, sorted(cells, key=str)))
            continue
        for k in ("max_ns", "p99_9_ns", "missed"):
            td, v = cells[k], r.get(k)
            if k == "missed":
                text = "–" if not r["count"] else "?" if r.get("_unknown_missed") else str(v)
                attr = td.attrs.get("data-n")
            else:
                text, attr = cell(r, k), td.attrs.get("data-ns")
            if td.all_text() != text:
                bad("%s %s: %r, want %r" % (w, k, td.all_text(), text))
            numeric = text not in ("–", "?")
            if (attr if numeric else None) != (str(v) if numeric else None) or \
                    (numeric and str(v) not in td.attrs.get("title", "")):
                bad("%s %s: data %s, title %r, the report has %s"
                    % (w, k, attr, td.attrs.get("title"), v))
            lvl = cell_level(td)
            if numeric and v and lvl not in scale[k](v):
                bad("%s %s: colour step %s for %s, want %s" % (w, k, lvl, v, scale[k](v)))
            if (not numeric or not v) and lvl is not None:
                bad("%s %s: coloured (%s) without a value above zero" % (w, k, lvl))


def time_grid(series):
    """The map's columns, as html_heatmap.c documents them: whole intervals of the shortest
    interval, the fewest per column that fit the longest series in MAXCOLS columns."""
    span = max(s["intervals"]["n"] * s["interval_ns"] for s in series)
    ivl = min(s["interval_ns"] for s in series)
    units = -(-span // ivl)
    g = max(1, -(-units // MAXCOLS))
    width = g * ivl
    return width, -(-span // width)


def check_time_map(probe, table, series, cpus):
    """One row per row of the statistics map (cpus), so that a CPU's two rows line up: its
    first series with intervals, or empty cells where it has none."""
    where = "overview %s over time" % probe
    first = {}
    for s in series:
        first.setdefault(s["cpu"], s)
    series = [first.get(c) for c in cpus]
    width, ncols = time_grid([s for s in series if s])
    if table.attrs.get("data-width-ns") != str(width) or \
            table.attrs.get("data-columns") != str(ncols) or ncols > MAXCOLS:
        bad("%s: %s columns of %s ns, want %d of %d (at most %d)"
            % (where, table.attrs.get("data-columns"), table.attrs.get("data-width-ns"), ncols,
               width, MAXCOLS))
        return
    heads = [th for th in table.find("th") if th.parent.parent.tag == "thead"]
    if sum(int(th.attrs.get("colspan", 1)) for th in heads[1:]) != ncols:
        bad("%s: the time labels span %s columns, want %d"
            % (where, [th.attrs.get("colspan") for th in heads[1:]], ncols))
    rows = [tr for tr in table.find("tr") if "data-cpu" in tr.attrs]
    if [tr.attrs["data-cpu"] for tr in rows] != [str(c) for c in cpus]:
        bad("%s: rows for CPUs %s, want %s" % (where, [tr.attrs["data-cpu"] for tr in rows][:10],
                                                cpus[:10]))
        return
    if table.attrs.get("data-cpus") != str(len(cpus)):
        bad("%s: data-cpus %s, %d rows" % (where, table.attrs.get("data-cpus"), len(cpus)))
    want_all = []
    for tr, se in zip(rows, series):
        want = [None] * ncols
        iv = se["intervals"] if se else {"n": 0}
        for k in range(iv["n"]):
            if iv["count"][k]:
                c = min(ncols - 1, k * se["interval_ns"] // width)
                want[c] = iv["max_ns"][k] if want[c] is None else max(want[c], iv["max_ns"][k])
        want_all.append(want)
    scale = levels([v for w in want_all for v in w if v is not None])
    got_all = []
    for tr, se, want, cpu in zip(rows, series, want_all, cpus):
        w = "%s CPU %d" % (where, cpu)
        tds = list(tr.find("td"))
        got = [int(td.attrs["data-ns"]) if "data-ns" in td.attrs else None for td in tds]
        got_all += [v for v in got if v is not None]
        if got != want:
            diff = [c for c in range(max(len(got), len(want)))
                    if c >= len(got) or c >= len(want) or got[c] != want[c]]
            bad("%s: %d cells, %d differ from the maxima of the intervals they cover (first: "
                "column %d)" % (w, len(got), len(diff), diff[0]))
            continue
        for td, v in zip(tds, got):
            if v and cell_level(td) not in scale(v):
                bad("%s: colour step %s for %d, want %s" % (w, cell_level(td), v, scale(v)))
                break
        nonempty = [iv for iv, c in zip(se["intervals"]["max_ns"], se["intervals"]["count"])
                    if c] if se else []
        if nonempty and max(v for v in got if v is not None) != max(nonempty):
            bad("%s: largest cell %d, the series' largest interval max %d"
                % (w, max(v for v in got if v is not None), max(nonempty)))
    every = [m for se in series if se
             for m, c in zip(se["intervals"]["max_ns"], se["intervals"]["count"]) if c]
    if every and got_all and max(got_all) != max(every):
        bad("%s: largest cell %d, the largest interval max %d" % (where, max(got_all), max(every)))


def check_overview(root, rep, probes):
    results = rep["results"]
    ncpu = len({r["cpu"] for r in per_cpu(results)})
    maps = {}
    for t in root.find("table"):
        for kind in ("hm-stat", "hm-time"):
            if kind in t.attrs.get("class", "").split():
                maps.setdefault((kind, t.attrs.get("data-probe")), []).append(t)
    h2 = list(root.find("h2", id="overview"))
    if ncpu <= MANY:
        if maps or h2 or any("hm-legend" in n.attrs.get("class", "").split()
                             for n in root.find("div")):
            bad("%d CPUs: the page has a per-CPU overview" % ncpu)
        return
    if len(h2) != 1:
        bad("%d CPUs: %d per-CPU overview headings" % (ncpu, len(h2)))
    with_cpus = [p for p in probes if any(r["probe"] == p and r["phase"] == "all"
                                          for r in per_cpu(results))]
    def stat_cpus(p):
        return [r["cpu"] for r in per_cpu(results) if r["probe"] == p and r["phase"] == "all"]
    with_series = {(s["probe"], s["cpu"]) for s in rep.get("series", [])
                   if s["intervals"]["n"] and s["interval_ns"]}
    want = {("hm-stat", p) for p in with_cpus} | {
        ("hm-time", p) for p in with_cpus if any((p, c) in with_series for c in stat_cpus(p))}
    if set(maps) != want or any(len(v) != 1 for v in maps.values()):
        bad("overview maps %s, want %s" % (sorted(maps, key=str), sorted(want, key=str)))
    for p in with_cpus:
        line = [n for n in root.find("p", data_probe=p)
                if "hm-worst" in n.attrs.get("class", "").split()]
        if len(line) != 1 or line[0].attrs.get("data-cpus", "").split() != \
                [str(c) for c in worst_cpus(results, p)]:
            bad("overview %s: worst CPUs %s, want %s"
                % (p, [n.attrs.get("data-cpus") for n in line], worst_cpus(results, p)))
        if ("hm-stat", p) in maps:
            check_stat_map(p, maps[("hm-stat", p)][0], results)
        if ("hm-time", p) in maps:
            check_time_map(p, maps[("hm-time", p)][0],
                           [s for s in rep["series"] if s["probe"] == p and
                            s["intervals"]["n"] and s["interval_ns"]], stat_cpus(p))


def check_report_page(root, raw, rep):
    results, aggs = rep["results"], rep["aggregates"]
    everything = results + aggs
    phases = sorted({r["phase"] for r in everything} - {"all"})
    # Above MANY CPUs the plots draw the WORST CPUs of each probe (and all CPUs together).
    many = len({r["cpu"] for r in per_cpu(results)}) > MANY

    # Banner and headline.
    status = rep["run"]["status"]
    banner = list(root.find(id="status-banner"))
    if status == "complete" and banner:
        bad("a complete run has a status banner")
    if status != "complete" and (not banner or banner[0].attrs.get("data-status") != status):
        bad("status %s: no banner saying so" % status)
    h1 = list(root.find("h1", id="headline"))
    if len(h1) != 1:
        bad("%d headlines" % len(h1))
    else:
        h1 = h1[0]
        with_samples = [r for r in results if r["count"]]
        if not with_samples:
            if h1.attrs.get("data-worst-ns") != "none" or "No samples" not in h1.all_text():
                bad("no samples, but the headline says %r" % h1.all_text())
        else:
            worst = max(with_samples, key=lambda r: r["max_ns"])
            if h1.attrs.get("data-worst-ns") != str(worst["max_ns"]):
                bad("headline worst %s, the largest max over results is %d"
                    % (h1.attrs.get("data-worst-ns"), worst["max_ns"]))
            if worst["probe"] not in h1.all_text() or "CPU %d" % worst["cpu"] not in h1.all_text():
                bad("headline %r does not say where (%s CPU %d)" % (h1.all_text(), worst["probe"],
                                                                   worst["cpu"]))

    # Summary table: a row per result and aggregate, the stored numbers in µs.
    rows = {}
    for tr in root.find("tr"):
        if "data-probe" in tr.attrs and tr.parent.parent.attrs.get("id") == "summary-table":
            rows[(tr.attrs["data-probe"], tr.attrs["data-cpu"], tr.attrs["data-phase"])] = tr
    for r in everything:
        key = (r["probe"], str(r["cpu"]), r["phase"])
        tr = rows.pop(key, None)
        if tr is None:
            bad("summary: no row for %s" % (key,))
            continue
        cells = {td.attrs.get("data-stat"): td.all_text() for td in tr.find("td")}
        want = {"count": str(r["count"]),
                "missed": "?" if r.get("_unknown_missed") else str(r["missed"])}
        for k in ("min_ns", "p50_ns", "p99_ns", "p99_9_ns", "p99_99_ns", "max_ns"):
            want[k] = cell(r, k)
        for k, v in want.items():
            if cells.get(k) != v:
                bad("summary %s %s: %r, want %r" % (key, k, cells.get(k), v))
    if rows:
        bad("summary rows for results the report does not have: %s" % list(rows)[:3])

    # Warnings, as text.
    if rep["run"]["warnings"] is not None:
        shown = [li.all_text() for li in root.find("li") if li.attrs.get("class") == "warning"]
        if shown != rep["run"]["warnings"]:
            bad("warnings shown %s, the report has %s" % (shown[:3], rep["run"]["warnings"][:3]))

    # Which plots.
    probes = []
    for r in everything:
        if r["probe"] not in probes:
            probes.append(r["probe"])

    def find_res(probe, cpu, phase):
        for r in (aggs if cpu == "all" else results):
            if r["probe"] == probe and r["cpu"] == cpu and r["phase"] == phase:
                return r
        return None

    def lines(probe, phase="all"):
        drawn = worst_cpus(results, probe) if many else None
        out = [(str(r["cpu"]), r) for r in results if r["probe"] == probe and r["phase"] == phase
               and (drawn is None or r["cpu"] in drawn)]
        a = find_res(probe, "all", phase)
        if a:
            out.append(("all", a))
        return [(k, r) for k, r in out if drawable(r)]
    want = set()
    for p in probes:
        if lines(p):
            want |= {("histogram", p), ("exceedance", p)}
        if phases and any(drawable(find_res(p, "all", ph)) for ph in phases):
            want.add(("phases", p))
        if p + ".stack" in probes and p + ".wakeup" in probes and any(
                drawable(find_res(q, "all", "all")) for q in (p, p + ".stack", p + ".wakeup")):
            want.add(("netsplit", p))
    for se in rep.get("series", []):
        if any(se["intervals"]["count"]):
            want.add(("timeseries", se["probe"]))
    attrib = [a for a in (rep.get("attribution") or {}).get("series", []) if a["phase"] == "all"]
    for a in attrib:
        if a["causes"] and a["probe"] in probes:
            want.add(("causes", a["probe"]))
    if bool(rep.get("attribution")) != bool(list(root.find("h2", id="why"))):
        bad("a 'Why was it late' section %s the report's attribution"
            % ("without" if not rep.get("attribution") else "missing, with"))
    check_onspike(root, rep)
    check_overview(root, rep, probes)
    svgs = list(root.find("svg"))
    got = {}
    for s in svgs:
        k = (s.attrs.get("data-plot"), s.attrs.get("data-probe"))
        if k in got:
            bad("two plots %s" % (k,))
        got[k] = s
    if set(got) != want:
        bad("plots %s, want %s" % (sorted(got, key=str), sorted(want, key=str)))
    if raw.count("<svg") != len(svgs):
        bad("<svg in the text %d times, parsed %d" % (raw.count("<svg"), len(svgs)))

    for (kind, probe), svg in got.items():
        where = "%s %s" % (kind, probe)
        try:
            xs, ys = Scale(svg.attrs["data-x-scale"]), Scale(svg.attrs["data-y-scale"])
        except (KeyError, ValueError):
            bad("%s: no usable data-x-scale/data-y-scale" % where)
            continue
        paths = {p.attrs["data-series"]: p for p in svg.find("path") if "data-series" in p.attrs
                 and p.attrs.get("class", "").split()[0] in ("ln", "env")}
        if kind in ("histogram", "exceedance"):
            exp = dict(lines(probe))
        elif kind == "phases":
            exp = {ph: find_res(probe, "all", ph) for ph in phases}
            exp = {k: v for k, v in exp.items() if drawable(v)}
        elif kind == "netsplit":
            exp = {q: find_res(q, "all", "all") for q in (probe, probe + ".stack",
                                                          probe + ".wakeup")}
            exp = {k: v for k, v in exp.items() if drawable(v)}
        elif kind == "causes":
            check_causes(where, svg, xs, [a for a in attrib if a["probe"] == probe])
            continue
        else:
            check_timeseries(where, svg, xs, ys, paths, rep, probe, root,
                             worst_cpus(results, probe) if many else None)
            continue
        if set(paths) != set(exp):
            bad("%s: lines %s, want %s" % (where, sorted(paths), sorted(exp)))
            continue
        for key, res in exp.items():
            w = "%s line %s" % (where, key)
            if kind == "histogram":
                check_histogram_path(w, paths[key], res["histogram"], xs, ys)
            else:
                check_exceedance_path(w, paths[key], res["histogram"], xs, ys)
                if kind != "phases":
                    check_markers(w, svg, key, res, sum(b[2] for b in res["histogram"]), xs, ys)


def check_onspike(root, rep):
    """run --on-spike: the section exactly when the report has on_spike, linked from the
    navigation; the command as its text (escaped in the file, the same once parsed); one row per
    count, the report's; the first failure's status and time, or no such line."""
    osp = rep.get("on_spike")
    has = bool(list(root.find("h2", id="onspike")))
    linked = any(a.attrs.get("href") == "#onspike" for a in root.find("a"))
    if bool(osp) != has or has != linked:
        bad("on_spike %s, section %s, link %s" % (bool(osp), has, linked))
    if not osp:
        return
    cmd = list(root.find("code", id="onspike-command"))
    if len(cmd) != 1 or cmd[0].all_text() != osp["command"]:
        bad("on spike: command %r, the report's %r"
            % ([c.all_text() for c in cmd], osp["command"]))
    got = {}
    for tr in root.find("tr"):
        if "data-count" in tr.attrs:
            tds = list(tr.find("td"))
            got[tr.attrs["data-count"]] = tds[1].all_text() if len(tds) > 1 else None
    want = {k: str(osp[k]) for k in ("succeeded", "failed", "terminated", "killed",
                                     "not_started")}
    want.update({"skipped." + k: str(v) for k, v in osp["skipped"].items()})
    if osp["running"]:
        want["running"] = str(osp["running"])
    if got != want:
        bad("on spike: counts %s, the report's %s" % (got, want))
    cap = list(root.find(id="onspike-count"))
    if len(cap) != 1 or any(cap[0].attrs.get("data-" + k) != str(osp[k])
                            for k in ("spikes", "ran", "failed")):
        bad("on spike: the count line %s" % [c.attrs for c in cap])
    ff, line = osp.get("first_failure"), list(root.find(id="onspike-failure"))
    if bool(ff) != bool(line) or (ff and (ff["status"] not in line[0].all_text() or
                                          "%.3f s" % (ff["at_ns"] / 1e9) not in line[0].all_text())):
        bad("on spike: first failure %s, shown %s" % (ff, [n.all_text() for n in line]))


def check_causes(where, svg, xs, entries):
    """One bar per CPU: a segment per cause, in the stored order, as wide as its share."""
    segs = {}
    for p in svg.find("path"):
        if p.attrs.get("class") == "cz":
            segs.setdefault(p.attrs.get("data-series"), []).append(p)
    want = {str(a["cpu"]): a for a in entries}
    if set(segs) != {k for k, a in want.items() if a["causes"]}:
        bad("%s: bars for CPUs %s, want %s" % (where, sorted(segs), sorted(want)))
        return
    for key, ps in segs.items():
        causes = want[key]["causes"]
        if [p.attrs.get("data-cause") for p in ps] != [c["cause"] for c in causes]:
            bad("%s CPU %s: segments %s, want %s" % (where, key,
                [p.attrs.get("data-cause") for p in ps], [c["cause"] for c in causes]))
            continue
        at = 0.0
        for p, c in zip(ps, causes):
            pts = vertices(p.attrs.get("d", ""))
            x0, x1 = min(x for x, _ in pts), max(x for x, _ in pts)
            if not (close(x0, xs.px(at), 0.2) and close(x1, xs.px(at + c["share"]), 0.2)):
                bad("%s CPU %s %s: drawn from %s to %s, want %.1f to %.1f (share %s)"
                    % (where, key, c["cause"], x0, x1, xs.px(at), xs.px(at + c["share"]),
                       c["share"]))
            at += c["share"]


def check_timeseries(where, svg, xs, ys, paths, rep, probe, root, drawn=None):
    series = [s for s in rep["series"] if s["probe"] == probe]
    span = max([rep["run"]["duration_ns"]] +
               [s["intervals"]["n"] * s["interval_ns"] for s in series]) or 1
    if not close(xs.hi, span, 0.5) or xs.lo != 0:
        bad("%s: time axis %s..%s, the run spans 0..%d" % (where, xs.lo, xs.hi, span))
    # Many CPUs: the worst CPUs' lines only (the axes span every series).
    if drawn is not None:
        series = [s for s in series if s["cpu"] in drawn]
    want = {str(s["cpu"]): s for s in series}
    if set(paths) != set(want):
        bad("%s: lines %s, want %s" % (where, sorted(paths), sorted(want)))
        return
    total = 0
    any_down = False
    for key, se in want.items():
        w = "%s CPU %s" % (where, key)
        iv = se["intervals"]
        path = paths[key]
        pts = vertices(path.attrs.get("d", ""))
        total += len(pts)
        if path.attrs.get("data-n") != str(iv["n"]):
            bad("%s: data-n %s, the series has %d intervals" % (w, path.attrs.get("data-n"),
                                                                  iv["n"]))
        nonempty = [k for k in range(iv["n"]) if iv["count"][k]]
        if not nonempty:
            continue
        best = max(nonempty, key=lambda k: (iv["max_ns"][k], -k))
        marks = [m for m in svg.find("circle") if m.attrs.get("data-series") == key and
                 m.attrs.get("data-role") == "max"]
        if len(marks) != 1:
            bad("%s: %d max markers" % (w, len(marks)))
            continue
        m = marks[0]
        if m.attrs.get("data-ns") != str(iv["max_ns"][best]) or \
                m.attrs.get("data-t-ns") != str(best * se["interval_ns"]):
            bad("%s: max marker %s at %s, the series' max is %d at %d"
                % (w, m.attrs.get("data-ns"), m.attrs.get("data-t-ns"), iv["max_ns"][best],
                   best * se["interval_ns"]))
        mx, my = float(m.attrs["cx"]), float(m.attrs["cy"])
        if (mx, my) not in set(pts):
            bad("%s: the max marker (%s, %s) is not a vertex of the line" % (w, mx, my))
        if not close(my, ys.px(iv["max_ns"][best]), 0.51):
            bad("%s: the max is drawn at y %s, want %.1f" % (w, my, ys.px(iv["max_ns"][best])))
        down = iv["n"] > 2 * COLUMNS
        any_down |= down
        cls = path.attrs.get("class", "")
        if down != (cls == "env"):
            bad("%s: %d intervals drawn as %r" % (w, iv["n"], cls))
        if not down:
            # Every non-empty interval is a vertex at its maximum.
            if len(pts) != len(nonempty):
                bad("%s: %d vertices for %d non-empty intervals" % (w, len(pts), len(nonempty)))
                continue
            for (x, y), k in zip(pts, nonempty):
                t = (k + 0.5) * se["interval_ns"]
                if not (close(x, xs.px(t)) and close(y, ys.px(iv["max_ns"][k]))):
                    bad("%s: interval %d drawn at (%s, %s), want (%.1f, %.1f)"
                        % (w, k, x, y, xs.px(t), ys.px(iv["max_ns"][k])))
                    break
        else:
            # Each pixel column's highest interval maximum is on the band's upper edge.
            top = {}
            for x, y in pts:
                top[x] = min(y, top.get(x, y))
            colmax = {}
            for k in nonempty:
                c = (k + 0.5) * se["interval_ns"] / span * COLUMNS
                c = 0 if not c > 0 else min(int(c), COLUMNS - 1)
                colmax[c] = max(colmax.get(c, 0), iv["max_ns"][k])
            for c, v in colmax.items():
                y = top.get(float(LEFT + c))
                if y is None or not close(y, round(ys.px(v)), 0.01):
                    bad("%s: column %d's maximum %d drawn at %s, want %d"
                        % (w, c, v, y, round(ys.px(v))))
                    break
    fig = svg.parent
    cap = " ".join(c.all_text() for c in fig.find("figcaption"))
    if any_down:
        m = re.search(r"Down-sampled to ([0-9]+) points", cap)
        if not m or int(m.group(1)) != total:
            bad("%s: caption %r does not say down-sampled to %d points" % (where, cap[:200], total))
    elif "Down-sampled" in cap:
        bad("%s: says down-sampled but is not" % where)


# ------------------------------------------------------- compare page --

def check_compare_page(root, raw, cmp, a, b):
    verdicts = {(m["probe"], str(m["cpu"]), m["phase"]): m for m in cmp["matches"]}
    rows = {(tr.attrs["data-probe"], tr.attrs["data-cpu"], tr.attrs["data-phase"]): tr
            for tr in root.find("tr") if "data-verdict" in tr.attrs}
    if set(rows) != set(verdicts):
        bad("verdict rows %s, want %s" % (sorted(rows)[:4], sorted(verdicts)[:4]))
    for k, m in verdicts.items():
        tr = rows.get(k)
        if tr is None:
            continue
        cells = {td.attrs.get("data-col"): td for td in tr.find("td")}
        if tr.attrs["data-verdict"] != m["verdict"] or cells["verdict"].all_text() != m["verdict"]:
            bad("%s: verdict %r, want %r" % (k, tr.attrs["data-verdict"], m["verdict"]))
        if "why" not in cells or cells["why"].all_text() != m["reason"]:
            bad("%s: why %r, want %r" % (k, "why" in cells and cells["why"].all_text(), m["reason"]))
        # rtsoak-compare/2: a shift cell per --verdict-on statistic, its own verdict first
        for stat in cmp["verdict_on"]:
            j = [j for j in m["judged"] if j["asked"] == stat]
            cell = cells.get("shift-" + stat)
            if not j or cell is None:
                bad("%s: no %s judgement or cell" % (k, stat))
                continue
            j = j[0]
            if j["shift_ns"] is None:
                want = "–"
            elif j["ci_low_ns"] is not None:
                want = "%s %+.1f µs (%+.1f … %+.1f)" % (j["verdict"], j["shift_ns"] / 1000,
                                                       j["ci_low_ns"] / 1000, j["ci_high_ns"] / 1000)
            else:
                want = "%s %+.1f µs (no interval)" % (j["verdict"], j["shift_ns"] / 1000)
            if cell.all_text() != want or cell.attrs.get("data-verdict") != j["verdict"]:
                bad("%s: %s shift %r, want %r" % (k, stat, cell.all_text(), want))
        if cells["method"].attrs.get("data-method") != m["method"]:
            bad("%s: method %s, want %s" % (k, cells["method"].attrs.get("data-method"),
                                            m["method"]))
    h1 = next(root.find("h1", id="headline"), None)
    tested = [m for m in cmp["matches"] if m["verdict"] != "untested"]
    if h1 is None or h1.attrs.get("data-worse") != str(sum(m["verdict"] == "worse" for m in tested)) \
            or h1.attrs.get("data-better") != str(sum(m["verdict"] == "better" for m in tested)):
        bad("headline counts differ from the verdicts")
    lims = {tr.attrs["data-limit"]: tr for tr in root.find("tr") if "data-limit" in tr.attrs}
    for l in cmp["limits"]:
        tr = lims.pop(l["expr"], None)
        if tr is None or tr.attrs.get("data-broken") != str(len(l["broken_by"])):
            bad("--fail-if %s: row %s, want %d broken" % (l["expr"], tr and tr.attrs,
                                                          len(l["broken_by"])))
        elif ("BROKEN" in tr.all_text()) != bool(l["broken_by"]):
            bad("--fail-if %s: says %r" % (l["expr"], tr.all_text()))
    if lims:
        bad("limit rows nobody asked for: %s" % list(lims))
    shown = [li.all_text() for li in root.find("li") if li.attrs.get("class") == "warning"]
    if shown != cmp["warnings"]:
        bad("warnings shown %s, want %s" % (shown, cmp["warnings"]))
    h2 = next(root.find("h2", id="differences"), None)
    if h2 is None or "(%d)" % len(cmp["differences"]) not in h2.all_text():
        bad("differences heading %r, want %d" % (h2 and h2.all_text(), len(cmp["differences"])))
    diff_rows = [tr for t in root.find("table", id="difference-table") for tr in t.find("tr")]
    if cmp["differences"] and len(diff_rows) != len(cmp["differences"]) + 1:
        bad("%d difference rows for %d differences" % (len(diff_rows) - 1, len(cmp["differences"])))

    # Overlays: A and B of every aggregate match, from the two reports' histograms.
    def agg(rep, probe, phase):
        for r in rep["aggregates"]:
            if r["probe"] == probe and r["phase"] == phase:
                return r
    svgs = list(root.find("svg"))
    if raw.count("<svg") != len(svgs):
        bad("<svg in the text %d times, parsed %d" % (raw.count("<svg"), len(svgs)))
    by = {}
    for s in svgs:
        by.setdefault((s.attrs.get("data-plot"), s.attrs.get("data-probe"), s.attrs.get("data-cpu"),
                       s.attrs.get("data-phase")), []).append(s)
    for m in cmp["matches"]:
        if m["cpu"] != "all":
            continue
        ra, rb = agg(a, m["probe"], m["phase"]), agg(b, m["probe"], m["phase"])
        if not (drawable(ra) or drawable(rb)):
            continue
        for kind in ("compare-histogram", "compare-exceedance"):
            found = by.get((kind, m["probe"], "all", m["phase"]), [])
            if len(found) != 1:
                bad("%s %s %s: %d plots" % (kind, m["probe"], m["phase"], len(found)))
                continue
            svg = found[0]
            xs, ys = Scale(svg.attrs["data-x-scale"]), Scale(svg.attrs["data-y-scale"])
            paths = {p.attrs["data-series"]: p for p in svg.find("path") if "data-series" in p.attrs}
            for key, res in (("A", ra), ("B", rb)):
                w = "%s %s %s %s" % (kind, m["probe"], m["phase"], key)
                if not drawable(res):
                    continue
                if key not in paths:
                    bad("%s: not drawn" % w)
                elif kind == "compare-histogram":
                    check_histogram_path(w, paths[key], res["histogram"], xs, ys)
                else:
                    check_exceedance_path(w, paths[key], res["histogram"], xs, ys)


def load_report(path):
    """An rtsoak report, or the model rtsoak makes of a cyclictest file."""
    text = open(path).read()
    try:
        rep = json.loads(text)
    except ValueError:
        # cyclictest prints -nan for an idle thread's average: not JSON.
        rep = json.loads(re.sub(r"(?<=[:\[,\s])-?nan(?![A-Za-z])", "null", text))
    if "thread" in rep and "schema" not in rep:
        rep = cyclictest_model(rep)
    return rep


def main():
    args = sys.argv[1:]
    if len(args) == 5 and args[2] == "--compare":
        root, raw = parse_page(args[0])
        check_compare_page(root, raw, json.load(open(args[1])), load_report(args[3]),
                           load_report(args[4]))
    elif len(args) == 2:
        root, raw = parse_page(args[0])
        check_report_page(root, raw, load_report(args[1]))
    else:
        sys.exit(__doc__)
    for p in problems[:30]:
        print(p)
    if len(problems) > 30:
        print("... and %d more" % (len(problems) - 30))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
