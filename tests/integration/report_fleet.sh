#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `rtsoak report A.json B.json ...` is the fleet view: one row per report, worst first.  Two
# real short runs, and copies of them edited with python to known values: hi.json (host rig-hi,
# a CPU 3 result with a 900 ms max in phase "hog", and a larger 2 s max on a split part
# timer.stack, which must not count), mid.json (600 ms), two ties of 300 ms (t1, t2: one host,
# one machine id), esc.json (host "<b>x</b>") and an imported cyclictest file.  Checks: the
# order (against python's own sort of the files), the worst row's probe, CPU and phase, the
# counts line, the JSON against docs/fleet-schema.json and value for value against the reports,
# the HTML (parses, one row per report, escapes, heat map cells exact, a link only where the
# report's own .html exists), one file keeps the single summary, and the errors: a missing file
# (2, one line), --prom with two files (2), an output in a missing directory (2, before any
# read), a full device (3).
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema

plan 23
cd "$WORK" || exit 1

"$RTSOAK" run --duration 1s --cpus 0 --probes timer -q -o a.json 2>/dev/null &&
	"$RTSOAK" run --duration 1s --cpus 0 --probes timer -q -o b.json 2>/dev/null
ok $? "two real runs (--duration 1s --cpus 0 --probes timer)"

# Edited copies: host, machine id and the results' maxima.
"$PYTHON3" - "$top_srcdir/tests/data/cyclictest-h.json" <<'EOF'
import copy, json, sys
def edit(src, dst, host, mid, max_ns=None, extra=()):
    r = json.load(open(src))
    r["system"]["hostname"] = host
    r["system"]["machine"]["machine_id_sha256"] = mid
    if max_ns is not None:
        r["results"][0]["max_ns"] = max_ns
    base = r["results"][0]
    for cpu, probe, phase, mx in extra:
        x = copy.deepcopy(base)
        x.update(cpu=cpu, probe=probe, phase=phase, max_ns=mx or x["max_ns"])
        r["results"].append(x)
    json.dump(r, open(dst, "w"))
edit("a.json", "hi.json", "rig-hi", "1" * 64,
     extra=[(3, "timer", "all", 900000000), (3, "timer", "hog", 900000000),
            (3, "timer", "idle", None), (5, "timer.stack", "all", 2000000000)])
edit("b.json", "mid.json", "rig-mid", "2" * 64, 600000000)
edit("a.json", "t1.json", "rig-tie", "3" * 64, 300000000)
edit("b.json", "t2.json", "rig-tie", "3" * 64, 300000000)
edit("b.json", "esc.json", "<b>x</b>", "4" * 64)
open("ct.json", "w").write(open(sys.argv[1]).read())
EOF
ok $? "edited copies written"
FILES="t2.json esc.json a.json ct.json hi.json b.json mid.json t1.json"
N=8

# The expected order and values, from the files themselves: the worst is the largest max_ns of
# the per-CPU phase-"all" results that are not parts (*.stack, *.wakeup); ties by file name.
"$PYTHON3" - $FILES >expect.json <<'EOF'
import json, sys
rows = []
for f in sys.argv[1:]:
    r = json.load(open(f))
    if "threads" in r or "thread" in r:  # cyclictest: compare with what rtsoak reads of it
        continue
    res = [x for x in r["results"] if x["phase"] == "all" and x["cpu"] is not None
           and x["count"] and x["probe"].rsplit(".", 1)[-1] not in ("stack", "wakeup")]
    w = max(res, key=lambda x: x["max_ns"])  # max() keeps the first of equal ones
    ph = [x for x in r["results"] if x["phase"] != "all" and x["cpu"] == w["cpu"]
          and x["probe"] == w["probe"] and x["count"]]
    sysm = r["system"]
    rows.append({"file": f, "host": sysm.get("hostname"),
                 "host_id": sysm["machine"]["machine_id_sha256"],
                 "kernel": sysm["kernel"]["release"],
                 "worst": {"probe": w["probe"], "cpu": w["cpu"],
                           "phase": max(ph, key=lambda x: x["max_ns"])["phase"] if ph else "all",
                           "max_ns": w["max_ns"], "p99_9_ns": w["p99_9_ns"]},
                 "missed": sum(x["missed"] for x in res),
                 "checks_not_pass": [c["id"] for c in r["checks"]
                                     if c["status"] in ("warn", "fail")]})
json.dump(rows, sys.stdout)
EOF

"$RTSOAK" report $FILES >text 2>err
rc=$?
[ $rc -eq 0 ] && [ ! -s err ]
ok $? "report with $N files exits 0, nothing on stderr (rc=$rc, $(head -c 200 err))"
[ "$(wc -l <text)" -eq $((N + 2)) ]
ok $? "text: a header, one row per report and the counts line ($(wc -l <text) lines)"

# The files of the text rows (last column) against python's order of the rtsoak reports, with
# the cyclictest file (max 2598 us, read by rtsoak) in its place by its own max.
"$PYTHON3" - text expect.json <<'EOF' 2>&1 | sed 's/^/# /'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
rows = [l.split() for l in lines[1:-1]]
got = [r[-1] for r in rows]
exp = json.load(open(sys.argv[2]))
ct = json.load(open("ct.json"))  # cyclictest: max in us per thread
exp.append({"file": "ct.json",
            "worst": {"max_ns": 1000 * max(t["max"] for t in ct["thread"].values())}})
want = [e["file"] for e in sorted(exp, key=lambda e: (-e["worst"]["max_ns"], e["file"]))]
print("got ", got)
print("want", want)
sys.exit(got != want)
EOF
ok ${PIPESTATUS[0]} "text rows are worst first, ties by file name (t1 before t2 though given after)"

row=$(sed -n 2p text)
read -r -a c <<<"$row"
[ "${c[0]:-}" = 900000 ] && [ "${c[1]:-}" = timer ] && [ "${c[2]:-}" = 3 ] &&
	[ "${c[3]:-}" = hog ] && [ "${c[${#c[@]} - 1]:-}" = hi.json ]
ok $? "the worst row: 900000 us, timer on CPU 3 in phase hog, hi.json (not timer.stack's 2 s): $row"

# Distinct machine ids; ct.json (cyclictest: a hostname, no machine id) is the host of a
# report with an id and its hostname, else a host of its own.
hosts=$("$PYTHON3" - <<'EOF'
import json
rows = [json.load(open(f)) for f in ("a.json", "b.json", "hi.json", "mid.json", "t1.json",
                                     "t2.json", "esc.json")]
ids = {r["system"]["machine"]["machine_id_sha256"] for r in rows}
ct = json.load(open("ct.json"))["sysinfo"]["nodename"]
print(len(ids) + (ct not in {r["system"]["hostname"] for r in rows}))
EOF
)
tail -1 text | grep -q "^$N reports, $hosts hosts; worst 900000 us: timer on CPU 3 of rig-hi (hi.json)$"
ok $? "counts line: $N reports, $hosts hosts, the worst overall ($(tail -1 text))"

mkdir -p out pages
"$RTSOAK" report a.json --html a.html 2>/dev/null
ok $? "a.json's own page a.html"
"$RTSOAK" report $FILES --json out/fleet.json --html out/fleet.html 2>err
rc=$?
[ $rc -eq 0 ] && [ ! -s err ]
ok $? "--json and --html exit 0, nothing on stderr (rc=$rc, $(head -c 200 err))"

SCHEMA="$top_srcdir/docs/fleet-schema.json" "$PYTHON3" - out/fleet.json <<'EOF' 2>&1 | sed 's/^/# /'
import json, os, sys
import jsonschema
from jsonschema.validators import validator_for
schema = json.load(open(os.environ["SCHEMA"]))
cls = validator_for(schema)
errs = list(cls(schema).iter_errors(json.load(open(sys.argv[1]))))
for e in errs[:5]:
    print(e.message, "at", "/".join(map(str, e.absolute_path)))
sys.exit(1 if errs else 0)
EOF
ok ${PIPESTATUS[0]} "--json validates against docs/fleet-schema.json"

"$PYTHON3" - out/fleet.json expect.json text <<'EOF' 2>&1 | sed 's/^/# /'
import json, sys
f = json.load(open(sys.argv[1]))
exp = {e["file"]: e for e in json.load(open(sys.argv[2]))}
text_order = [l.split()[-1] for l in open(sys.argv[3]).read().splitlines()[1:-1]]
bad = []
if f["schema"] != "rtsoak-fleet/1":
    bad.append("schema %r" % f["schema"])
if [r["file"] for r in f["reports"]] != text_order:
    bad.append("order %s, text %s" % ([r["file"] for r in f["reports"]], text_order))
for r in f["reports"]:
    e = exp.get(r["file"])
    if e is None:
        if r["tool"] != "cyclictest" or r["missed"] is not None or r["checks_not_pass"] is not None:
            bad.append("%s: tool %s missed %s checks %s" % (r["file"], r["tool"], r["missed"],
                                                            r["checks_not_pass"]))
        continue
    for k, v in e.items():
        if r[k] != v:
            bad.append("%s: %s = %r, the report's %r" % (r["file"], k, r[k], v))
s = f["summary"]
if s["reports"] != len(f["reports"]) or s["worst"] != {"file": "hi.json", "max_ns": 900000000}:
    bad.append("summary %r" % s)
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF
ok ${PIPESTATUS[0]} "--json: the text's order, and every row's values equal the report's own"

# The page: html.parser takes it whole; rows, escaping, links, heat map cells.
"$PYTHON3" - out/fleet.html <<'EOF' 2>&1 | sed 's/^/# /' >html.log
import json, sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.rows, self.hrefs, self.cells, self.errors = [], [], {}, {}, []
        self.table = None
        self.row = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.table = a.get("id")
        if tag == "tr" and "data-file" in a:
            self.row = a["data-file"]
            if self.table == "fleet-table":
                self.rows.append(self.row)
        if tag == "a" and self.table == "fleet-table":
            self.hrefs[self.row] = a["href"]
        if tag == "td" and self.table in ("heat-max", "heat-p999") and "data-ns" in a:
            self.cells.setdefault(self.table, []).append((self.row, int(a["data-ns"]),
                                                          a.get("title")))
        if tag not in ("meta", "br", "img", "input", "link"):
            self.stack.append(tag)
    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else ""))
        else:
            self.stack.pop()
        if tag == "table":
            self.table = None
p = P()
p.feed(open(sys.argv[1]).read())
p.close()
print(json.dumps({"rows": p.rows, "hrefs": p.hrefs, "cells": p.cells,
                  "errors": p.errors[:5], "open": p.stack}))
EOF
ok ${PIPESTATUS[0]} "html.parser reads the page"
H=$(sed 's/^# //' html.log)
"$PYTHON3" -c '
import json, sys
h = json.loads(sys.argv[1])
sys.exit(h["errors"] != [] or h["open"] != [] or len(h["rows"]) != int(sys.argv[2]))' "$H" $N
ok $? "the page's tags nest and close, and its table has one row per report ($(echo "$H" | head -c 200))"
grep -q '&lt;b&gt;x&lt;/b&gt;' out/fleet.html && ! grep -q '<b>x</b>' out/fleet.html
ok $? "the hostname <b>x</b> is escaped, never markup"
"$PYTHON3" -c '
import json, os, sys
h = json.loads(sys.argv[1])
ok = h["hrefs"] == {"a.json": "../a.html"} and os.path.isfile(os.path.join("out", "../a.html"))
sys.exit(not ok)' "$H"
ok $? "only a.json links to its own page, relative to the fleet page (../a.html)"
"$PYTHON3" - "$H" out/fleet.json <<'EOF' 2>&1 | sed 's/^/# /'
import json, sys
h = json.loads(sys.argv[1])
fleet = json.load(open(sys.argv[2]))["reports"]
bad = []
for m, key in (("heat-max", "max_ns"), ("heat-p999", "p99_9_ns")):
    want = sorted((r["file"], c[key]) for r in fleet for c in r["cpus"] if c[key] is not None)
    got = sorted((f, ns) for f, ns, title in h["cells"].get(m, []))
    if got != want:
        bad.append("%s: cells %s, the rows' %s" % (m, got, want))
    for f, ns, title in h["cells"].get(m, []):
        if "%d ns" % ns not in (title or ""):
            bad.append("%s: %s cell %d titled %r" % (m, f, ns, title))
hi3 = [c for c in h["cells"].get("heat-max", []) if c[0] == "hi.json" and c[1] == 900000000]
if len(hi3) != 1 or "CPU 3" not in hi3[0][2]:
    bad.append("hi.json's CPU 3 max cell: %s" % hi3)
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF
ok ${PIPESTATUS[0]} "heat maps: one cell per measured CPU, exact values in data-ns and the title"

"$RTSOAK" report a.json >single 2>&1
head -1 single | grep -q '^rtsoak [^ ]*: complete' && grep -q '^probe cpu' single
ok $? "one file keeps the single report's summary ($(head -1 single))"

"$RTSOAK" report a.json nope.json b.json --html miss.html >out.txt 2>err
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q 'nope.json' err && [ ! -e miss.html ] &&
	[ ! -s out.txt ]
ok $? "a missing file: exit 2, one line naming it, nothing written (rc=$rc: $(cat err))"

"$RTSOAK" report a.json b.json --prom p.prom 2>err
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q -- '--prom' err && [ ! -e p.prom ]
ok $? "--prom with two files: exit 2, one line (rc=$rc: $(cat err))"

# The missing input would be the first error if the reports were read before the output check.
"$RTSOAK" report a.json nope.json --html nodir/f.html 2>err
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q -- '--html' err && ! grep -q nope.json err
ok $? "an output in a missing directory: exit 2 before any report is read (rc=$rc: $(cat err))"

if [ -c /dev/full ]; then
	"$RTSOAK" report a.json b.json --json /dev/full 2>err
	rc=$?
	[ $rc -eq 3 ] && grep -q 'cannot write' err
	ok $? "--json to a full device: exit 3 (rc=$rc: $(tail -1 err))"
	"$RTSOAK" report a.json b.json >/dev/full 2>err
	rc=$?
	[ $rc -eq 3 ] && grep -q 'cannot write' err
	ok $? "the text view to a full device: exit 3 (rc=$rc: $(tail -1 err))"
else
	skip "no /dev/full"
	skip "no /dev/full"
fi

# Counts say "1 host" and "N hosts", "reports" (issue 27: the page said "2 reports, 1 hosts"):
# t1 and t2 are one machine; the eight files above are $hosts hosts.
"$RTSOAK" report t1.json t2.json >one.txt 2>err &&
	"$RTSOAK" report t1.json t2.json --html one.html 2>>err &&
	tail -1 one.txt | grep -q '^2 reports, 1 host; worst ' &&
	grep -q '<h1 id="headline" data-reports="2" data-hosts="1">2 reports, 1 host: worst ' one.html &&
	grep -q '<title>rtsoak fleet: 2 reports</title>' one.html &&
	grep -q "<h1 id=\"headline\" data-reports=\"$N\" data-hosts=\"$hosts\">$N reports, $hosts hosts: " \
		out/fleet.html
ok $? "one host: '$(tail -1 one.txt | cut -d';' -f1)', $(grep -o '<h1[^>]*>[^:]*' one.html | sed 's/.*>//'); $N reports: $(grep -o '<h1[^>]*>[^:]*' out/fleet.html | sed 's/.*>//')"
done_testing
