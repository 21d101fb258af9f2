#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The HTML pages in a real browser (headless Chromium, offline): every plot is in the DOM the
# browser built and has drawn lines, the page paints (light, dark and print) without a
# JavaScript error, the "Why was it late" section of a report with attribution renders (its
# causes plot, table and strips laid out with a size), the "On spike" section fits 800 px, and a
# huge report (64 CPUs x 10 000 intervals) renders in at most 4 times the browser's start-up
# with an empty page.
#
# Rendering time: `chromium --screenshot` of the huge page minus the same for an empty page
# (the browser's start-up), best of 3 each (other work on the machine only adds time).  A
# screenshot reads, parses, styles and lays out the whole page and paints the window.  Not
# `--dump-dom`: it never paints, and most of its extra time on a large page is serialising the
# DOM back to text (a page of the same size holding one big comment takes about as long);
# both are printed as diagnostics, with the time to paint the whole page at once.
. "$(dirname "$0")/lib.sh"
require_root

CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
[ -n "$CHROMIUM" ] || skip_all "chromium is not installed (apt-get install chromium)"
CHECK="$PYTHON3 $top_srcdir/tests/html_check.py"

cd "$WORK" || exit 1
# browser ARGS...: headless, offline, a fresh profile each time; stderr to browser.log.
browser() {
	"$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --user-data-dir="$(mktemp -d "$WORK/profile.XXXXXX")" \
		"$@" 2>>browser.log
}
cat >empty.html <<'EOF'
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>empty</title></head><body></body></html>
EOF
browser --dump-dom "file://$WORK/empty.html" | grep -q '<title>empty</title>' ||
	skip_all "chromium does not run here: $(tail -3 browser.log | tr '\n' ' ')"

# dom_plots DUMP SOURCE: the browser's DOM has the source page's plots, each with drawn
# lines (a path with a data-series and at least two points); prints problems.
dom_plots() {
	"$PYTHON3" - "$1" "$2" <<'EOF' 2>&1 | sed 's/^/# /'
import html.parser, re, sys

class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.plots, self.cur = [], None
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "svg":
            self.cur = [a.get("data-plot"), a.get("data-probe"), 0]
            self.plots.append(self.cur)
        elif tag == "path" and self.cur and "data-series" in a and \
                len(re.findall(r"-?[0-9.]+", a.get("d", ""))) >= 4:
            self.cur[2] += 1
    handle_startendtag = handle_starttag
    def handle_endtag(self, tag):
        if tag == "svg":
            self.cur = None

def plots(path):
    p = P()
    p.feed(open(path, encoding="utf-8").read())
    return p.plots
dom, src = plots(sys.argv[1]), plots(sys.argv[2])
bad = []
if [x[:2] for x in dom] != [x[:2] for x in src]:
    bad.append("plots in the DOM %s, in the page %s" % ([x[:2] for x in dom][:6],
                                                        [x[:2] for x in src][:6]))
for kind, probe, lines in dom:
    if not lines:
        bad.append("%s %s: no line drawn" % (kind, probe))
if not dom:
    bad.append("no plot at all")
for b in bad[:10]:
    print(b)
sys.exit(1 if bad else 0)
EOF
}

# png_stats PNG: "colours dark_fraction mean_luminance" of a screenshot (decoded with zlib:
# no imaging library needed).
png_stats() {
	"$PYTHON3" - "$1" <<'EOF'
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(d):
    n, t = struct.unpack(">I4s", d[pos:pos + 8])
    body = d[pos + 8:pos + 8 + n]
    pos += 12 + n
    if t == b"IHDR":
        w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
    elif t == b"IDAT":
        idat += body
assert depth == 8 and interlace == 0 and ctype in (2, 6), "unexpected PNG format"
bpp = 3 if ctype == 2 else 4
stride, raw = w * bpp, zlib.decompress(idat)
prev, colours, lum, n = bytearray(stride), set(), 0, 0
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    if f == 1:
        for x in range(bpp, stride):
            line[x] = (line[x] + line[x - bpp]) & 255
    elif f == 2:
        line = bytearray((a + b) & 255 for a, b in zip(line, prev))
    elif f == 3:
        for x in range(stride):
            line[x] = (line[x] + (((line[x - bpp] if x >= bpp else 0) + prev[x]) >> 1)) & 255
    elif f == 4:
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    if y % 2 == 0:
        for x in range(0, stride, bpp * 2):
            px = bytes(line[x:x + 3])
            colours.add(px)
            lum += (px[0] * 299 + px[1] * 587 + px[2] * 114) // 1000
            n += 1
    prev = line
print(len(colours), lum // n)
EOF
}

plan 26

"$RTSOAK" run --duration 4s --series-interval 100ms -q -o plain.json --html plain.html 2>/dev/null
ok $? "a plain run (timer and net) with --html"
"$RTSOAK" run --duration 6s --series-interval 100ms --probes timer --loads cpu:load=30 \
	--schedule rotate --phase-duration 2s -q -o rot.json --html rot.html 2>/dev/null
ok $? "a rotate run with --html"
"$RTSOAK" compare plain.json rot.json --html cmp.html >/dev/null 2>&1
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ]
ok $? "a compare page"

# A report with an attribution section (synthetic values on a real run's spikes) and a
# compare of it against one whose causes shifted.
"$PYTHON3" "$top_srcdir/tests/make_attrib_report.py" "$top_srcdir/tests/data/report-spike.json" \
	why.json &&
	"$PYTHON3" "$top_srcdir/tests/make_attrib_report.py" \
		"$top_srcdir/tests/data/report-spike.json" whyb.json --shift &&
	"$RTSOAK" report why.json --html why.html && $CHECK why.html why.json
rc=$?
"$RTSOAK" compare why.json whyb.json --html whycmp.html >/dev/null 2>&1
[ $rc -eq 0 ] && grep -q 'id="causes-table"' whycmp.html
ok $? "pages with the attribution views (report and compare)"

for p in plain rot cmp why whycmp; do
	: >browser.log
	browser --enable-logging=stderr --v=0 --dump-dom "file://$WORK/$p.html" >$p.dom
	dom_plots $p.dom $p.html
	ok $? "$p: the browser's DOM has every plot, each with drawn lines ($(grep -c '<svg' $p.dom) plots)"
	errs=$(grep -E 'CONSOLE|Uncaught' browser.log)
	[ -z "$errs" ] || echo "$errs" | head -5 | sed 's/^/# /'
	[ -z "$errs" ]
	ok $? "$p: no JavaScript error"
done

# The section as the browser laid it out: --dump-dom keeps no sizes, so a script in a copy of
# the page writes the rendered boxes into the DOM.
sed 's|</body>|<script>addEventListener("load",function(){var o=[];document.querySelectorAll("svg[data-plot=causes], table.why-top, .split").forEach(function(e){var r=e.getBoundingClientRect();o.push(e.tagName+":"+Math.round(r.width)+"x"+Math.round(r.height))});document.body.setAttribute("data-boxes",o.join(" "))})</script></body>|' \
	why.html >why-boxes.html
browser --dump-dom "file://$WORK/why-boxes.html" >why-boxes.dom
boxes=$(grep -o 'data-boxes="[^"]*"' why-boxes.dom)
diag "why section boxes: ${boxes:0:160}"
"$PYTHON3" - "$boxes" <<'EOF'
import re, sys
b = re.findall(r"(\w+):(\d+)x(\d+)", sys.argv[1])
svg = [(int(w), int(h)) for t, w, h in b if t.lower() == "svg"]
tab = [(int(w), int(h)) for t, w, h in b if t == "TABLE"]
strips = [(int(w), int(h)) for t, w, h in b if t == "SPAN"]
sys.exit(0 if len(svg) == 1 and svg[0][0] > 500 and svg[0][1] > 20 and len(tab) == 1 and
         tab[0][1] > 100 and len(strips) == 10 and all(w > 50 and h > 3 for w, h in strips)
         else 1)
EOF
ok $? "the why section renders: a causes plot, the worst-spikes table, 10 split strips"

browser --window-size=1000,1400 --screenshot="$WORK/light.png" "file://$WORK/plain.html" >/dev/null
read -r colours lum < <(png_stats light.png)
[ "${colours:-0}" -gt 100 ] && [ "${lum:-0}" -gt 180 ]
ok $? "light screenshot is drawn: $colours colours, mean luminance $lum (light background)"
browser --force-dark-mode --window-size=1000,1400 --screenshot="$WORK/dark.png" \
	"file://$WORK/plain.html" >/dev/null
read -r colours lum < <(png_stats dark.png)
[ "${colours:-0}" -gt 100 ] && [ "${lum:-255}" -lt 80 ]
ok $? "dark mode (prefers-color-scheme) screenshot: $colours colours, mean luminance $lum"
browser --no-pdf-header-footer --print-to-pdf="$WORK/print.pdf" "file://$WORK/rot.html" >/dev/null
pages=$(grep -acE '/Type */Page([^s]|$)' print.pdf)
head -c 5 print.pdf | grep -q '%PDF' && [ "$pages" -ge 2 ]
ok $? "printed to PDF: $pages pages"

# --- the huge page
"$PYTHON3" "$top_srcdir/tests/make_huge_report.py" plain.json huge.json &&
	"$RTSOAK" report huge.json --html huge.html && $CHECK huge.html huge.json
ok $? "huge report: page written ($(stat -c %s huge.html) bytes) and checked"
browser --dump-dom "file://$WORK/huge.html" >huge.dom
# 64 CPUs are more than 16 (issue 20): the time plot draws the 8 worst, each with its marker.
dom_plots huge.dom huge.html && [ "$(grep -c 'data-role="max"' huge.dom)" -eq 8 ]
ok $? "huge page in the browser: every plot drawn, 8 max markers (the 8 worst of 64 CPUs)"
# The per-CPU overview as the browser laid it out (a script in a copy writes the boxes into
# the DOM): both maps have a size, side by side at 1280 pixels with their rows level, and
# every cell of them has a width and a height.
"$PYTHON3" - huge.html huge-boxes.html <<'EOF'
import sys
js = """<script>addEventListener("load",function(){var o=[];
document.querySelectorAll("table.hm").forEach(function(t){var r=t.getBoundingClientRect(),
z=0,n=0,first=t.querySelector("tbody tr").getBoundingClientRect();
t.querySelectorAll("tbody td").forEach(function(c){var b=c.getBoundingClientRect();n++;
if(!(b.width>0)||!(b.height>0))z++});
o.push(t.className.split(" ").pop()+":"+Math.round(r.width)+"x"+Math.round(r.height)+":"+
Math.round(first.top)+":"+n+":"+z)});
document.body.setAttribute("data-boxes",o.join(" "))})</script></body>"""
open(sys.argv[2], "w").write(open(sys.argv[1]).read().replace("</body>", js))
EOF
browser --window-size=1280,1024 --dump-dom "file://$WORK/huge-boxes.html" >huge-boxes.dom
boxes=$(grep -o 'data-boxes="[^"]*"' huge-boxes.dom)
diag "overview boxes (map:WxH:first row top:cells:empty boxes): $boxes"
"$PYTHON3" - "$boxes" <<'EOF'
import re, sys
b = {k: tuple(map(int, v)) for k, *v in re.findall(r"(hm-\w+):(\d+)x(\d+):(-?\d+):(\d+):(\d+)", sys.argv[1])}
ok = set(b) == {"hm-stat", "hm-time"}
if ok:
    (sw, sh, st, sn, sz), (tw, th, tt, tn, tz) = b["hm-stat"], b["hm-time"]
    ok = (sw > 100 and sh > 64 * 10 and tw > 300 and abs(sh - th) <= 2 and st == tt and
          sn == 64 * 3 and tn % 64 == 0 and 0 < tn <= 64 * 120 and sz == 0 and tz == 0)
sys.exit(0 if ok else 1)
EOF
ok $? "huge page: the per-CPU overview renders, two maps side by side, rows level, no empty cell box"
browser --window-size=1280,1024 --screenshot="$WORK/huge.png" "file://$WORK/huge.html" >/dev/null
read -r colours lum < <(png_stats huge.png)
[ "${colours:-0}" -gt 30 ]
ok $? "huge page paints ($colours colours)"

# best MODE WINDOW PAGE: the best of 5 wall times (ms) of one headless run
# (a shared 2-vCPU VM: the best of several is the figure noise does not inflate).
best() {
	"$PYTHON3" - "$CHROMIUM" "$WORK" "$@" <<'EOF'
import subprocess, sys, tempfile, time
chromium, work, mode, window, page = sys.argv[1:]
out = ["--screenshot=%s/t.png" % work]
times = []
for _ in range(5):
    t = time.monotonic()
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    "--disable-background-networking", "--window-size=" + window,
                    "--user-data-dir=" + tempfile.mkdtemp(dir=work)] + out +
                   ["file://%s/%s" % (work, page)],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    times.append(time.monotonic() - t)
print(round(min(times) * 1000))
EOF
}
e=$(best shot 1280,1024 empty.html)
h=$(best shot 1280,1024 huge.html)
render=$((h - e))
diag "huge page rendering: screenshot 1280x1024 ${h} ms - empty page ${e} ms = ${render} ms"
# Not a wall-clock bound (another job on the machine made 2261 ms of a
# 2000 ms goal): against the browser's own start-up with an empty page,
# measured here the same way, which a busy machine stretches alike: at most
# 4 of them (seen 1.5 to 1.8 on a busy 2-vCPU VM, e.g. 4169 ms against
# 8636 ms once).  The absolute figures stay as diagnostics; the speed goal
# (< 2 s) is bench/speed-goals.sh's.
[ "$e" -gt 0 ] && [ "$render" -le $((4 * e)) ]
ok $? "huge page renders in ${render} ms, at most 4 empty-page browser runs (${e} ms each; start-up excluded)"
# (The --dump-dom and whole-page 1280x14000 timings that were printed here
# asserted nothing and cost 20 browser runs of the huge page, minutes on a
# busy machine: figures belong in bench/.)

# --- the tuning-checks table at 800 and 1300 px: every check of plain.json shown (status warn, whatever
# this machine passes), one observed value a path too long for any column.  Each check's name
# is one line, whole (it was "preem / pt.mo / del" in a column a few letters wide), and the
# table fits the window: the text columns wrap instead.  A script in a copy of the page writes
# each name's line boxes and the widths into the DOM.
"$PYTHON3" - plain.json checks.json <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
for c in r["checks"]:
    c["status"] = "warn"
r["checks"][0]["observed"] += " /sys/" + "very_long_path_component/" * 8 + "end"
json.dump(r, open(sys.argv[2], "w"))
EOF
"$RTSOAK" report checks.json --html checks.html 2>/dev/null &&
	"$PYTHON3" - checks.html checks-lines.html <<'EOF'
import sys
js = """<script>addEventListener("load",function(){var o=[],w=document.documentElement;
document.querySelectorAll("#checks-table tr[data-check]").forEach(function(tr){
var td=tr.children[1],code=td.querySelector("code");
o.push(tr.getAttribute("data-check")+":"+code.getClientRects().length+":"+
(td.scrollWidth<=td.clientWidth?1:0))});
document.body.setAttribute("data-names",o.join(" "));
document.body.setAttribute("data-fit",w.scrollWidth+":"+w.clientWidth+":"+
Math.round(document.getElementById("checks-table").getBoundingClientRect().right))})
</script></body>"""
open(sys.argv[2], "w").write(open(sys.argv[1]).read().replace("</body>", js))
EOF
# At 800 px (narrow) and 1300 px (a laptop): the same rules.
for w in 800 1300; do
	browser --window-size=$w,2000 --dump-dom "file://$WORK/checks-lines.html" >checks-lines.dom
	names=$(grep -o 'data-names="[^"]*"' checks-lines.dom)
	fit=$(grep -o 'data-fit="[^"]*"' checks-lines.dom)
	diag "at $w px, check:line boxes:fits ${names:0:200}...; page scroll:client width:table right $fit"
	"$PYTHON3" - "$names" "$fit" "$(jget plain.json 'len(r["checks"])')" <<'EOF' 2>&1 | sed 's/^/# /'
import re, sys
rows = re.findall(r"([\w.-]+):(\d+):(\d)", sys.argv[1])
fit = [int(x) for x in re.findall(r"\d+", sys.argv[2])]
bad = ["%s: %s line boxes, fits %s" % r for r in rows if r[1] != "1" or r[2] != "1"]
if not rows or len(rows) != int(sys.argv[3]):
    bad.append("%d rows, the report has %s checks" % (len(rows), sys.argv[3]))
if len(fit) != 3 or fit[0] > fit[1] or fit[2] > fit[1]:
    bad.append("the page scrolls sideways or the table is cut (%s)" % sys.argv[2])
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF
	ok ${PIPESTATUS[0]} "checks table at $w px: every check name on one line, whole; the table fits the window"
done

# --- the "On spike" section at 800 px: a command of two lines, one of them a path too long for
# the window, keeps its newline (white-space pre-wrap) and wraps (at least two line heights)
# rather than pushing the page sideways; the counts table fits.
"$PYTHON3" - plain.json onspike.json <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["on_spike"] = {"command": "perf record -o /var/tmp/" + "very_long_path_component/" * 10 +
                 "x.data -C \"$RTSOAK_CPU\" sleep 1\nlogger spike", "interval_ns": 10**9,
                 "attribution_wait_ns": 0, "end_wait_ns": 3 * 10**9, "spikes": 40, "ran": 3,
                 "skipped": {"running": 7, "interval": 30, "unlogged": 0}, "not_started": 0,
                 "succeeded": 2, "failed": 1, "running": 0, "terminated": 0, "killed": 0,
                 "shared_cpus": False, "first_failure": {"status": "exit 1", "at_ns": 2300000000}}
json.dump(r, open(sys.argv[2], "w"))
EOF
"$RTSOAK" report onspike.json --html onspike.html 2>/dev/null &&
	"$PYTHON3" - onspike.html onspike-fit.html <<'EOF'
import sys
js = """<script>addEventListener("load",function(){var w=document.documentElement,
c=document.getElementById("onspike-command"),r=c.getBoundingClientRect();
document.body.setAttribute("data-fit",w.scrollWidth+":"+w.clientWidth+":"+
Math.round(document.getElementById("onspike-table").getBoundingClientRect().right)+":"+
Math.round(r.right)+":"+Math.round(r.height)+":"+Math.round(parseFloat(getComputedStyle(c).fontSize))+
":"+(getComputedStyle(c).whiteSpace=="pre-wrap"?1:0))})
</script></body>"""
open(sys.argv[2], "w").write(open(sys.argv[1]).read().replace("</body>", js))
EOF
browser --window-size=800,2000 --dump-dom "file://$WORK/onspike-fit.html" >onspike-fit.dom
fit=$(grep -o 'data-fit="[^"]*"' onspike-fit.dom)
diag "on spike at 800 px: page scroll:client width:table right:command right:height:font px:pre-wrap $fit"
"$PYTHON3" - "$fit" <<'EOF' 2>&1 | sed 's/^/# /'
import re, sys
f = [int(x) for x in re.findall(r"\d+", sys.argv[1])]
# two lines at least (the long path wrapped), the newline kept (white-space pre-wrap)
ok = len(f) == 7 and f[0] <= f[1] and f[2] <= f[1] and f[3] <= f[1] and f[4] >= 2 * f[5] and f[6]
if not ok:
    print("the page scrolls sideways, the section is cut or the command lost its lines (%s)"
          % sys.argv[1])
sys.exit(0 if ok else 1)
EOF
ok ${PIPESTATUS[0]} "on spike at 800 px: the long command wraps and keeps its lines, the table fits"
done_testing

