#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `rtsoak cyclictest [cyclictest options]` and rtsoak through a symlink named cyclictest (issue
# 19): the same option line through the real cyclictest 2.4 and through rtsoak gives files of
# the same structure: --json with the same keys, order and types at every level and histogram
# rows below -h US; the -h text with the same lines (digits aside) and trailer; -q's T: line in
# the same format.  No latency is compared, only structure and counts.  An option rtsoak
# cannot honour, or a bad value, exits 2 with one line naming it and measures nothing.
# --rtsoak-output keeps a schema-valid rtsoak report; without it no file is left behind.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema
command -v cyclictest >/dev/null || skip_all "cyclictest not installed (apt-get install rt-tests)"

plan 18
cd "$WORK" || exit 1
mkdir tmp
export TMPDIR=$WORK/tmp

# CPU 1 where there is one (CPU 0 keeps the housekeeping), else 0.
if [ "$(ncpus)" -ge 2 ]; then CPU=1; else CPU=0; fi
LINE=(-q -m -p 80 -a $CPU -t 1 -i 1000 -D 2 -h 200)

cyclictest "${LINE[@]}" --json ct.json >ct.txt 2>ct.err
ok $? "real cyclictest ${LINE[*]} --json ran"
"$RTSOAK" cyclictest "${LINE[@]}" --json rs.json --rtsoak-output report.json >rs.txt 2>rs.err
rc=$?
[ $rc -eq 0 ] && [ ! -s rs.err ]
ok $? "rtsoak cyclictest with the same line: exit 0 ($rc), nothing on stderr ($(head -c 200 rs.err))"

# shape REF OUT US: REF's structure in OUT, recursively: the same keys in the same order, the
# same JSON types; every histogram {"us": count} with rows below US and at most cycles in it.
shape() {
	"$PYTHON3" - "$@" <<'EOF' 2>&1 | sed 's/^/# /'
import json, sys
ref, out = (json.load(open(p)) for p in sys.argv[1:3])
us = int(sys.argv[3])
bad = []
kind = lambda v: type(v).__name__
def walk(where, a, b):
    if kind(a) != kind(b):
        bad.append("%s: %s, cyclictest's %s" % (where, kind(b), kind(a)))
    elif isinstance(a, dict) and where.endswith(".histogram"):
        rows = [int(k) for k in b]
        if any(r >= us for r in rows) or not all(type(v) is int and v > 0 for v in b.values()):
            bad.append("%s: rows %s not below %d with counts > 0" % (where, rows[-3:], us))
    elif isinstance(a, dict) and where == "top.thread":
        if len(a) != len(b):
            bad.append("%s: %d threads, cyclictest's %d" % (where, len(b), len(a)))
        for k in b:
            walk(where + "." + k, a["0"], b[k])
    elif isinstance(a, dict):
        if list(a) != list(b):
            bad.append("%s: keys %s, cyclictest's %s" % (where, list(b), list(a)))
        for k in a:
            if k in b:
                walk(where + "." + k, a[k], b[k])
walk("top", ref, out)
for k, t in out["thread"].items():
    if sum(t["histogram"].values()) > t["cycles"]:
        bad.append("thread.%s: histogram holds more than its %d cycles" % (k, t["cycles"]))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF
	return "${PIPESTATUS[0]}"
}
shape ct.json rs.json 200
ok $? "--json: cyclictest 2.4's keys, order and types at every level, rows below 200 us"

# layout FILE: the -h text with every digit a 9 and rtsoak's own "# rtsoak:" notes left out;
# the overflow line of each thread reduced to its start (cyclictest lists cycle numbers that
# rtsoak does not keep, and says "# N others" only beyond them).
layout() { grep -v '^# rtsoak:' "$1" | sed -e 's/[0-9]/9/g' -e 's/^\(# Thread 9:\).*/\1/'; }
layout ct.txt >ct.layout
layout rs.txt >rs.layout
same_bytes ct.layout rs.layout
ok $? "-h 200 text: the same $(wc -l <ct.layout) lines as cyclictest's, digits aside"
n=$(grep -c '^[0-9]\{6\} [0-9]\{6\}$' rs.txt)
trailer=$(grep -c -e '^# Total: ' -e '^# Min Latencies: ' -e '^# Avg Latencies: ' \
	-e '^# Max Latencies: ' -e '^# Histogram Overflows: ' rs.txt)
[ "$n" -eq 200 ] && [ "$trailer" -eq 5 ]
ok $? "-h 200: 200 rows ($n) and the five trailer lines ($trailer)"

validate report.json
ok $? "--rtsoak-output: a schema-valid rtsoak report"
"$PYTHON3" - report.json rs.json <<'EOF' 2>&1 | sed 's/^/# /'
import json, sys
r, o = (json.load(open(p)) for p in sys.argv[1:3])
t = [x for x in r["results"] if x["probe"] == "timer" and x["phase"] == "all"]
bad = []
if [x["cpu"] for x in t] != [o["thread"]["0"]["cpu"]] or t[0]["count"] != o["thread"]["0"]["cycles"]:
    bad.append("report: %s, --json: %s" % ([(x["cpu"], x["count"]) for x in t],
                                           (o["thread"]["0"]["cpu"], o["thread"]["0"]["cycles"])))
if not o["cmdline:"].split()[0].endswith("rtsoak") or " cyclictest -q -m " not in o["cmdline:"]:
    bad.append("cmdline: %r" % o["cmdline:"])
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF
ok "${PIPESTATUS[0]}" "the report's one timer result is the --json thread (CPU, cycles); cmdline: as typed"
ls tmp >left
[ ! -s left ]
ok $? "no temporary report left in TMPDIR ($(tr '\n' ' ' <left))"

# -q without -h: the T: line cyclictest prints at the end.  tline FILE: its layout with runs of
# spaces as one and none after a colon (the widths are cyclictest's, the numbers' lengths vary:
# a max of 10 ms or more fills -N's Max:%8ld and leaves no space, in either program).
tline() { layout "$1" | sed -e 's/99*/9/g' -e 's/  */ /g' -e 's/: /:/g' -e 's/( /(/'; }
T='^T: *[0-9]+ \( *[0-9]+\) P:[0-9]+ I:[0-9]+ C: *[0-9]+ Min: *[0-9]+ Act: *[0-9]+ Avg: *[0-9]+ Max: *[0-9]+$'
cyclictest -q -m -p 80 -a $CPU -i 1000 -l 200 >ctq.txt 2>/dev/null
"$RTSOAK" cyclictest -q -m -p 80 -a $CPU -i 1000 -l 200 >rsq.txt 2>rsq.err
rc=$?
ct_t=$(grep -Ec "$T" ctq.txt)
rs_t=$(grep -Ec "$T" rsq.txt)
[ $rc -eq 0 ] && [ "$ct_t" -eq 1 ] && [ "$rs_t" -eq 1 ] && grep -q ' C:    200 ' rsq.txt &&
	same_bytes <(tline ctq.txt) <(tline rsq.txt)
ok $? "-q -l 200: one T: line as cyclictest's (rtsoak $rs_t, cyclictest $ct_t), C: 200 ($(tail -n 1 rsq.txt))"

# -N: the T: line and --json in ns, as cyclictest -N writes them.
cyclictest -q -N -m -p 80 -a $CPU -i 1000 -l 200 --json ctn.json >ctn.txt 2>/dev/null
"$RTSOAK" cyclictest -q -N -m -p 80 -a $CPU -i 1000 -l 200 --json rsn.json >rsn.txt 2>/dev/null
rc=$?
[ $rc -eq 0 ] && [ "$(jget rsn.json 'r["resolution_in_ns"]')" = 1 ] && shape ctn.json rsn.json 1 &&
	same_bytes <(tline ctn.txt) <(tline rsn.txt) &&
	grep -Eq 'Act:[ 0-9]{8} Avg:[ 0-9]{8} Max:' rsn.txt
ok $? "-N: exit 0 ($rc), resolution_in_ns 1, cyclictest's structure and T: line ($(tail -n 1 rsn.txt))"

# The symlink: the whole command line is cyclictest's.
ln -s "$RTSOAK" cyclictest
./cyclictest "${LINE[@]}" --json ln.json >ln.txt 2>ln.err
rc=$?
[ $rc -eq 0 ] && [ ! -s ln.err ]
ok $? "./cyclictest (a symlink to rtsoak): exit 0 ($rc), nothing on stderr ($(head -c 200 ln.err))"
shape ct.json ln.json 200 && [[ $(jget ln.json 'r["cmdline:"]') == "./cyclictest -q -m "* ]]
ok $? "./cyclictest --json: cyclictest's structure, cmdline: $(jget ln.json 'r["cmdline:"]')"
layout ln.txt >ln.layout
same_bytes ct.layout ln.layout
ok $? "./cyclictest -h 200 text: cyclictest's layout"

# refused NAME ARGS...: exit 2, one line naming NAME, no --json file, no report.
refused() {
	local name=$1
	shift
	rm -f x.json
	err=$("$RTSOAK" cyclictest "$@" --json x.json 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 2 ] && [ "$(printf '%s\n' "$err" | grep -c .)" -eq 1 ] &&
		[[ $err == "rtsoak: cyclictest: "*"$name"* ]] && [ ! -e x.json ] && [ -z "$(ls tmp)" ]
}
refused --smi -p 80 -a $CPU -D 1 --smi
ok $? "--smi: exit 2 ($rc), one line naming it, nothing measured ($err)"
refused -b -p 80 -a $CPU -D 1 -b 100
ok $? "-b 100: exit 2 ($rc), one line naming it, nothing measured ($err)"
refused "-i: 'abc'" -p 80 -a $CPU -D 1 -i abc
ok $? "-i abc: exit 2 ($rc), one line ($err)"
refused --policy -p 80 -a $CPU -D 1 --policy rr
ok $? "--policy rr: exit 2 ($rc), one line ($err)"
refused -p -a $CPU -D 1
ok $? "no -p (cyclictest's SCHED_OTHER): exit 2 ($rc), one line ($err)"
