#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `rtsoak report X.json --rt-tests-json OUT` writes what cyclictest --json (rt-tests 2.x) writes:
# the real cyclictest runs here and its file is the reference, key for key and type for type at
# every level.  rtsoak's own cyclictest importer reads the export back to the report's count,
# min, max, mean and p99 per CPU (1 us).  `--lava` writes one result line per (probe, CPU,
# statistic) with the report's values; contrib/lava/rtsoak.yaml is valid YAML and its run steps
# work.  Errors: no timer probe exits 2, a full output 3.
. "$(dirname "$0")/lib.sh"
require_root
command -v cyclictest >/dev/null || skip_all "cyclictest not installed (apt-get install rt-tests)"

plan 21
cd "$WORK" || exit 1

# Two CPUs where there are two, as the brief's reference run; one otherwise.
if [ "$(ncpus)" -ge 2 ]; then CPUS=0-1 NT=2; else CPUS=0 NT=1; fi

cyclictest -q -m -p 95 -i 1000 -t $NT -a $CPUS -l 2000 -h 2000 --json=ct.json >ct.out 2>&1
ok $? "real cyclictest --json ran (-t $NT -a $CPUS)"
"$RTSOAK" run --probes timer --cpus $CPUS --duration 2s -q -o run.json 2>/dev/null
ok $? "rtsoak run --probes timer --cpus $CPUS --duration 2s"

"$RTSOAK" report run.json --rt-tests-json out.json 2>err
rc=$?
[ $rc -eq 0 ] && [ ! -s err ]
ok $? "report --rt-tests-json exits 0 and says nothing (rc=$rc, $(head -c 200 err))"

# shape REF OUT: the same keys in the same order with values of the same JSON types, at the top,
# in sysinfo and in every thread; thread keys "0".."n-1"; histogram keys whole us, counts ints.
"$PYTHON3" - ct.json out.json <<'EOF' 2>&1 | sed 's/^/# /'
import json, sys
ref, out = (json.load(open(p)) for p in sys.argv[1:3])
bad = []
def jtype(v):
    # JSON's types: a float that prints as 16.00 is still a number with a fraction part
    return {bool: "bool", int: "int", float: "real", str: "string", dict: "object",
            list: "array", type(None): "null"}[type(v)]
def same(where, a, b):
    if list(a) != list(b):
        bad.append("%s: keys %s, cyclictest's %s" % (where, list(b), list(a)))
    for k in a:
        if k in b and k != "histogram" and jtype(a[k]) != jtype(b[k]):
            bad.append("%s.%s: %s, cyclictest's %s" % (where, k, jtype(b[k]), jtype(a[k])))
same("top", ref, out)
same("sysinfo", ref["sysinfo"], out["sysinfo"])
if list(out["thread"]) != [str(i) for i in range(out["num_threads"])]:
    bad.append("thread keys %s for num_threads %d" % (list(out["thread"]), out["num_threads"]))
for i, t in out["thread"].items():
    same("thread." + i, ref["thread"]["0"], t)
    h = t["histogram"]
    if not isinstance(h, dict) or not all(k.isdigit() and type(v) is int and v > 0
                                          for k, v in h.items()):
        bad.append("thread.%s.histogram is not {\"us\": count > 0}" % i)
    elif h:
        # min and max are samples of their own rows; no overflow below 100 ms
        ks = [int(k) for k in h]
        if ks != sorted(ks) or min(ks) != t["min"] or max(ks) != t["max"]:
            bad.append("thread.%s: rows %d..%d, min %d, max %d" % (i, min(ks), max(ks),
                                                                   t["min"], t["max"]))
        if sum(h.values()) != t["cycles"]:
            bad.append("thread.%s: histogram holds %d of %d cycles" % (i, sum(h.values()),
                                                                       t["cycles"]))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF
ok ${PIPESTATUS[0]} "the export has cyclictest 2.4's keys, order and types at every level"

"$PYTHON3" - run.json out.json <<'EOF' 2>&1 | sed 's/^/# /'
import json, sys
r, o = (json.load(open(p)) for p in sys.argv[1:3])
timer = sorted((x for x in r["results"] if x["probe"] == "timer" and x["phase"] == "all"),
               key=lambda x: x["cpu"])
bad = []
if o["num_threads"] != len(timer):
    bad.append("num_threads %d for %d timer results" % (o["num_threads"], len(timer)))
for i, x in enumerate(timer):
    t = o["thread"][str(i)]
    want = {"cycles": x["count"], "cpu": x["cpu"], "min": x["min_ns"] // 1000,
            "max": x["max_ns"] // 1000, "node": 0}
    for k, v in want.items():
        if t[k] != v:
            bad.append("thread %d %s: %s, want %s" % (i, k, t[k], v))
    if abs(t["avg"] - round(x["mean_ns"] / 1000, 2)) > 0.005:
        bad.append("thread %d avg %s for mean %d ns" % (i, t["avg"], x["mean_ns"]))
if o["return_code"] != 0 or o["sysinfo"]["nodename"] != r["system"]["hostname"] or \
        o["sysinfo"]["release"] != r["system"]["kernel"]["release"]:
    bad.append("return_code/nodename/release: %s" % [o["return_code"], o["sysinfo"]])
if o["cmdline:"] != " ".join(r["tool"]["argv"]):
    bad.append("cmdline: %r" % o["cmdline:"])
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF
ok ${PIPESTATUS[0]} "threads are the timer results by CPU: cycles, truncated min/max, avg (%.2f), cpu, node"

# The importer sees what the export says: compare lines the two up statistic by statistic.
"$RTSOAK" compare run.json out.json --json cmp.json >/dev/null 2>&1
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ]
ok $? "compare run.json out.json reads the export (rc=$rc)"
"$PYTHON3" - cmp.json $NT <<'EOF' 2>&1 | sed 's/^/# /'
import json, sys
c = json.load(open(sys.argv[1]))
seen, bad = 0, []
for m in c["matches"]:
    if m["probe"] != "timer" or m["phase"] != "all" or m["cpu"] in ("all", None, -1):
        continue
    seen += 1
    s = m["stats"]
    if s["count"]["a"] != s["count"]["b"]:
        bad.append("cpu %s count %s vs %s" % (m["cpu"], s["count"]["a"], s["count"]["b"]))
    for k in ("min", "max", "mean", "p99"):
        a, b = s[k]["a"], s[k]["b"]
        # 1 us (the export's rows), and for p99 also one bucket of rtsoak's own
        # histogram there (128 per octave: 1.024 us from 131 us up), which the
        # read-back re-buckets into: a percentile is no finer than its bucket
        tol = 1000 + (1 << max(0, (a or 0).bit_length() - 8) if k == "p99" else 0)
        if a is None or b is None or abs(a - b) > tol:
            bad.append("cpu %s %s: report %s ns, read back %s ns" % (m["cpu"], k, a, b))
        else:
            print("cpu %s %s: %d -> %d ns" % (m["cpu"], k, a, b))
if seen != int(sys.argv[2]):
    bad.append("%d per-CPU timer matches, want %s" % (seen, sys.argv[2]))
for b in bad:
    print("MISMATCH " + b)
sys.exit(1 if bad else 0)
EOF
ok ${PIPESTATUS[0]} "read back by the cyclictest importer: count exact, min, max, mean within 1 us per CPU, p99 within 1 us and one histogram bucket"

"$RTSOAK" report out.json --color never >imp.txt 2>&1
grep -q "an rtsoak command line" imp.txt && ! grep -q "cmdline options unknown" imp.txt
ok $? "the importer does not read the export's rtsoak command line as cyclictest options"

"$RTSOAK" report run.json --rt-tests-json - | cmp -s - out.json
ok $? "--rt-tests-json - writes the same bytes to stdout (deterministic)"

# --- timer and net: net is left out of the cyclictest shape, not of --lava
"$RTSOAK" run --probes timer,net --cpus $CPUS --loops 300 --interval 100us -q -o tn.json 2>/dev/null
ok $? "run: timer and net"
"$RTSOAK" report tn.json --rt-tests-json tn.ct.json &&
	[ "$(jget tn.ct.json 'r["num_threads"]')" = "$(jget tn.json \
		'len([x for x in r["results"] if x["probe"] == "timer" and x["phase"] == "all"])')" ]
ok $? "timer,net: --rt-tests-json holds the timer threads only"

# check_lava REPORT LINES: one line per (probe, cpu, statistic) of phase "all" with the report's
# values (ns written as us with 3 decimals, exact), then "rtsoak pass|fail" from the status.
check_lava() {
	"$PYTHON3" - "$1" "$2" <<'EOF' 2>&1 | sed 's/^/# /'
import json, re, sys
r = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().split("\n")
bad = []
if lines[-1] != "":
    bad.append("no newline at the end")
lines = lines[:-1]
want = []
for x in r["results"]:
    if x["phase"] != "all":
        continue
    n = "%s-cpu%d-" % (x["probe"], x["cpu"])
    for stat, key in (("min", "min_ns"), ("avg", "mean_ns"), ("p99", "p99_ns"), ("max", "max_ns")):
        v = x[key]
        want.append("%s%s-latency pass %d.%03d us" % (n, stat, v // 1000, v % 1000))
    want.append("%smissed pass %d count" % (n, x["missed"]))
want.append("rtsoak " + ("pass" if r["run"]["status"] == "complete" else "fail"))
line_re = re.compile(r"^[A-Za-z0-9._-]+ (pass|fail|skip)( [0-9]+(\.[0-9]+)? (us|count))?$")
for ln in lines:
    if not line_re.match(ln):
        bad.append("not a result.txt line: %r" % ln)
if lines != want:
    for a, b in zip(lines + [""] * len(want), want + [""] * len(lines)):
        if a != b:
            bad.append("got %r, want %r" % (a, b))
            break
    bad.append("%d lines, want %d" % (len(lines), len(want)))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF
	return "${PIPESTATUS[0]}"
}

"$RTSOAK" report run.json --lava >lava.txt 2>err
rc=$?
[ $rc -eq 0 ] && [ ! -s err ] && check_lava run.json lava.txt
ok $? "--lava: one line per (timer, cpu, statistic), the report's values (rc=$rc)"
"$RTSOAK" report tn.json --lava >tn.lava 2>/dev/null && check_lava tn.json tn.lava &&
	grep -q '^net-cpu' tn.lava
ok $? "--lava on timer,net: the net probe's lines too"
"$RTSOAK" report out.json --lava >ct.lava 2>/dev/null &&
	grep -q '^timer-cpu0-missed skip$' ct.lava && grep -q '^timer-cpu0-max-latency pass [0-9]*\.000 us$' ct.lava
ok $? "--lava on a cyclictest file: missed (unknown) is skip, values whole us"
"$RTSOAK" report run.json --lava --html - >/dev/null 2>err
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q "only one output can go to standard output" err
ok $? "--lava with another view on stdout: exit 2, one line (rc=$rc)"

# --- errors
"$RTSOAK" run --probes net --cpus $CPUS --loops 200 --interval 100us -q -o net.json 2>/dev/null
"$RTSOAK" report net.json --rt-tests-json net.ct.json 2>err
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q "^rtsoak: .*no timer probe" err && [ ! -e net.ct.json ]
ok $? "no timer probe: exit 2, one line, no file (rc=$rc, $(head -c 200 err))"
"$RTSOAK" report run.json --rt-tests-json "$WORK/no/such/dir/x.json" 2>err
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] &&
	grep -q "^rtsoak: report: --rt-tests-json: cannot create '$WORK/no/such/dir/x.json'" err
ok $? "--rt-tests-json into a missing directory: exit 2 naming it, as every view (rc=$rc, $(head -c 200 err))"
mknod "$WORK/full" c 1 7
"$RTSOAK" report run.json --rt-tests-json "$WORK/full" 2>err
rc=$?
[ $rc -eq 3 ] && grep -q "No space left on device" err
ok $? "--rt-tests-json into a full device: exit 3 naming ENOSPC (rc=$rc, $(head -c 200 err))"
"$RTSOAK" report run.json --lava >"$WORK/full" 2>err
rc=$?
[ $rc -eq 3 ] && grep -q "No space left on device" err
ok $? "--lava into a full standard output: exit 3 (rc=$rc, $(head -c 200 err))"

# --- contrib/lava/rtsoak.yaml: valid YAML of the test-definitions layout, and its run steps
# (with rtsoak on PATH and no lava-test-case) produce the test cases.
DEF="$top_srcdir/contrib/lava/rtsoak.yaml"
if "$PYTHON3" -c 'import yaml' 2>/dev/null; then
	"$PYTHON3" - "$DEF" >steps.sh <<'EOF'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert d["metadata"]["format"] == "Lava-Test-Shell Test Definition 1.0", d["metadata"]
assert d["metadata"]["name"] and d["install"]["steps"] and d["run"]["steps"]
print("set -u")
for k, v in d["params"].items():
    assert isinstance(v, str), k
    print("%s=%s" % (k, "'" + v.replace("'", "'\\''") + "'"))
for s in d["run"]["steps"]:
    assert isinstance(s, str), s
    print(s)
EOF
	ok $? "contrib/lava/rtsoak.yaml is valid YAML with metadata, params, install and run steps"
	mkdir -p lava/bin && ln -s "$RTSOAK" lava/bin/rtsoak
	(cd lava && DURATION=1s && PATH="$WORK/lava/bin:$PATH" &&
		sed -e "s/^DURATION=.*/DURATION=1s/" -e "s/^CPUS=.*/CPUS=$CPUS/" ../steps.sh >run.sh &&
		PATH="$WORK/lava/bin:/usr/bin:/bin" bash run.sh >run.out 2>&1)
	rc=$?
	[ $rc -eq 0 ] && [ "$(cat lava/output/rtsoak.rc)" = 0 ] && check_lava lava/output/rtsoak.json lava/output/result.txt &&
		[ "$(grep -c '^<TEST_CASE_ID=timer-cpu[0-9]*-max-latency RESULT=pass MEASUREMENT=[0-9.]* UNITS=us>$' lava/run.out)" -eq $NT ] &&
		grep -q '^<TEST_CASE_ID=rtsoak RESULT=pass' lava/run.out
	ok $? "its run steps (DURATION=1s): rtsoak accepts the command line, a test case per line (rc=$rc)"
	[ $rc -eq 0 ] || sed 's/^/# /' lava/run.out | head -20
else
	skip "python3-yaml not installed: contrib/lava/rtsoak.yaml not parsed"
	skip "python3-yaml not installed: its run steps not run"
fi

done_testing
