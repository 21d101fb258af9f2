#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `rtsoak report FILE --prom OUT` writes the Prometheus textfile (node_exporter's textfile
# collector): promtool must accept it without a single lint remark, and every value must be the
# report's own, to the ns, one series per per-CPU result (no cpu="all"), every one labelled with
# the run's name.  Bad input and unwritable paths exit 2.
. "$(dirname "$0")/lib.sh"
require_root
command -v promtool >/dev/null || skip_all "promtool not installed (apt-get install prometheus)"

# check_prom REPORT.json OUT.prom: parse the text format ourselves (no client library needed)
# and compare it with the JSON; prints each mismatch as a diagnostic.
check_prom() {
	"$PYTHON3" - "$1" "$2" "$top_srcdir/tests" <<'EOF' 2>&1 | sed 's/^/# /'
import json, re, sys
from decimal import Decimal

r = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().split("\n")
problems = []
def bad(msg):
    problems.append(msg)

# Text format 0.0.4: HELP, TYPE, then the family's samples, families never interleaved.
sample_re = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
label_re = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)')
def unescape(v):
    return re.sub(r'\\(.)', lambda m: "\n" if m.group(1) == "n" else m.group(1), v)
types, series, family, seen = {}, {}, None, set()
if lines[-1] != "":
    bad("no newline at the end")
for ln in lines[:-1]:
    if ln.startswith("# HELP "):
        name = ln.split(" ")[2]
        if name in seen:
            bad("family %s appears twice" % name)
        seen.add(name)
        family = None
        continue
    if ln.startswith("# TYPE "):
        _, _, name, t = ln.split(" ")
        if name not in seen:
            bad("TYPE without HELP: %s" % name)
        types[name], family = t, name
        if (t == "counter") != name.endswith("_total"):
            bad("%s: type %s and name disagree on _total" % (name, t))
        continue
    m = sample_re.match(ln)
    if not m:
        bad("unparsable line: %r" % ln)
        continue
    name, labels, value = m.groups()
    # a histogram's samples are its name + _bucket, _sum, _count; a summary's + _sum, _count
    if types.get(family) == "histogram" and name in (family + "_bucket", family + "_sum", family + "_count"):
        pass
    elif types.get(family) == "summary" and name in (family + "_sum", family + "_count"):
        pass
    elif name != family:
        bad("%s: sample outside its family (%s)" % (name, family))
    lab, rest = {}, labels or ""
    while rest:
        lm = label_re.match(rest)
        if not lm:
            bad("bad labels: %r" % labels)
            break
        lab[lm.group(1)] = unescape(lm.group(2))
        rest = rest[lm.end():]
    if not re.match(r'^[0-9]+(\.[0-9]+)?$', value):
        bad("%s: value %s is not a plain number" % (ln, value))
        continue
    # every series names its run (config.run_name; before it, the output's file name)
    want_run = r["config"].get("run_name")
    if want_run is None:
        want_run = re.sub(r"\.json$", "", r["config"]["output"].rsplit("/", 1)[-1])
    if lab.pop("run", None) != want_run:
        bad("%s: no run=%r label" % (ln, want_run))
    if lab.get("cpu") == "all":
        bad("%s: a cpu=\"all\" aggregate (sum() would count it twice)" % ln)
    key = tuple(sorted(lab.items()))
    if key in series.setdefault(name, {}):
        bad("duplicate series: %s" % ln)
    series[name][key] = Decimal(value)

def get(name, **lab):
    return series.get(name, {}).get(tuple(sorted(lab.items())))
def expect(name, want, **lab):
    got = get(name, **lab)
    if got is None or got != want:
        bad("%s%s = %s, want %s" % (name, lab, got, want))
def secs(ns):
    return Decimal(ns) / Decimal(10**9)

# Run: info, one-hot state, start, duration, warnings.
info = series.get("rtsoak_run_info", {})
sysk = r["system"].get("kernel") or {}
if len(info) != 1 or list(info.values())[0] != 1:
    bad("rtsoak_run_info: want one sample of 1, got %s" % info)
else:
    lab = dict(list(info.keys())[0])
    for k, want in (("version", r["tool"]["version"]), ("kernel", sysk.get("release") or ""),
                    ("status", r["run"]["status"]),
                    ("cpu_model", r["system"].get("cpu_model") or ""),
                    ("cpus", r["config"].get("cpus") or "")):
        if lab.get(k) != want:
            bad("run_info %s=%r, want %r" % (k, lab.get(k), want))
states = {dict(k)["state"]: v for k, v in series.get("rtsoak_run_state", {}).items()}
want = {s: int(s == r["run"]["status"]) for s in ("complete", "interrupted", "running", "failed", "disturbed")}
if states != want:
    bad("run_state %s, want %s" % (states, want))
import calendar, time
st = r["run"]["start"]
epoch = calendar.timegm(time.strptime(st[:19], "%Y-%m-%dT%H:%M:%S"))
expect("rtsoak_run_start_timestamp_seconds", Decimal(epoch) + Decimal(st[20:23]) / 1000)
expect("rtsoak_run_duration_seconds", secs(r["run"]["duration_ns"]))
expect("rtsoak_run_realtime", int(r["run"]["realtime"]))
expect("rtsoak_run_warnings", len(r["run"]["warnings"]))
for p in r["phases"]:
    expect("rtsoak_phase_seconds_total", secs(p["time_ns"]), phase=p["name"])
if len(series.get("rtsoak_phase_seconds_total", {})) != len(r["phases"]):
    bad("phase_seconds_total: %d series for %d phases"
        % (len(series.get("rtsoak_phase_seconds_total", {})), len(r["phases"])))

# Per-CPU results: every value, and exactly the expected label sets (aggregates are left out).
stats = {"min": "min_ns", "mean": "mean_ns", "stddev": "stddev_ns", "max": "max_ns"}
pcts = {"0.5": "p50_ns", "0.9": "p90_ns", "0.99": "p99_ns", "0.999": "p99_9_ns",
        "0.9999": "p99_99_ns", "0.99999": "p99_999_ns"}
sys.path.insert(0, sys.argv[3])
from histogram_layout import index, lower, upper
def mid_sum(res):
    ix = [(index(lo), c) for lo, _, c in res["histogram"]]
    return sum(c * (lower(i) + (upper(i) - lower(i)) // 2) for i, c in ix)
want_keys = {}
def want_key(name, **lab):
    want_keys.setdefault(name, set()).add(tuple(sorted(lab.items())))
for res in r["results"]:
    L = dict(probe=res["probe"], cpu=str(res["cpu"]), phase=res["phase"])
    expect("rtsoak_latency_samples_total", res["count"], **L)
    expect("rtsoak_latency_missed_total", res["missed"], **L)
    want_key("rtsoak_latency_samples_total", **L)
    want_key("rtsoak_latency_missed_total", **L)
    if res["count"]:
        for s, k in stats.items():
            expect("rtsoak_latency_%s_seconds" % s, secs(res[k]), **L)
            want_key("rtsoak_latency_%s_seconds" % s, **L)
        Q = "rtsoak_latency_quantiles_seconds"
        for p, k in pcts.items():
            expect(Q, secs(res[k]), quantile=p, **L)
            want_key(Q, quantile=p, **L)
        expect(Q + "_sum", secs(mid_sum(res)), **L)
        expect(Q + "_count", res["count"], **L)
        want_key(Q + "_sum", **L)
        want_key(Q + "_count", **L)
    for c, v in (res.get("counters") or {}).items():
        expect("rtsoak_probe_stat", v, stat=c, **L)
        want_key("rtsoak_probe_stat", stat=c, **L)
# The histogram: per-CPU results only, the fixed 1-2-5 bounds from 1 us to 1 s, a sample under
# le when its bucket of the report's histogram ends at or below le; _sum of bucket midpoints.
LE = [m * 10**e for e in range(3, 9) for m in (1, 2, 5)] + [10**9]
def le_text(ns):
    return format(Decimal(ns) / Decimal(10**9), "f").rstrip("0").rstrip(".")
if types.get("rtsoak_latency_seconds") != "histogram":
    bad("rtsoak_latency_seconds: type %s, want histogram" % types.get("rtsoak_latency_seconds"))
for res in r["results"]:
    L = dict(probe=res["probe"], cpu=str(res["cpu"]), phase=res["phase"])
    buckets = [(index(lo), c) for lo, _, c in res["histogram"]]
    for le in LE:
        n = sum(c for i, c in buckets if i < (1 << 30) and upper(i) <= le + 1)
        expect("rtsoak_latency_seconds_bucket", n, le=le_text(le), **L)
        want_key("rtsoak_latency_seconds_bucket", le=le_text(le), **L)
    expect("rtsoak_latency_seconds_bucket", res["count"], le="+Inf", **L)
    want_key("rtsoak_latency_seconds_bucket", le="+Inf", **L)
    expect("rtsoak_latency_seconds_sum", secs(mid_sum(res)), **L)
    expect("rtsoak_latency_seconds_count", res["count"], **L)
    want_key("rtsoak_latency_seconds_sum", **L)
    want_key("rtsoak_latency_seconds_count", **L)
# The windowed maximum: the series intervals of the last prom_window_ns (whole intervals, at
# least one), per probe and CPU, left out when they hold no sample.
win = r["config"].get("prom_window_ns") or 60 * 10**9
for se in r.get("series") or []:
    iv = se["intervals"]
    k = min(max(win // se["interval_ns"], 1), iv["n"])
    L = dict(probe=se["probe"], cpu=str(se["cpu"]), phase="all")
    if k and sum(iv["count"][-k:]):
        expect("rtsoak_latency_window_max_seconds", secs(max(iv["max_ns"][-k:])), **L)
        expect("rtsoak_latency_window_seconds", secs(k * se["interval_ns"]), **L)
        want_key("rtsoak_latency_window_max_seconds", **L)
        want_key("rtsoak_latency_window_seconds", **L)
# run --on-spike: the section's counts as counters without a cpu label, every skip reason
# (zeros included); no such family without the section.
osp = r.get("on_spike")
if osp:
    for name, key in (("runs", "ran"), ("failures", "failed"), ("not_started", "not_started")):
        expect("rtsoak_on_spike_%s_total" % name, osp[key])
        want_key("rtsoak_on_spike_%s_total" % name)
    for reason in ("running", "interval", "unlogged"):
        expect("rtsoak_on_spike_skipped_total", osp["skipped"][reason], reason=reason)
        want_key("rtsoak_on_spike_skipped_total", reason=reason)
for name in set(want_keys) | {n for n in series
                              if n.startswith(("rtsoak_latency", "rtsoak_probe", "rtsoak_on_spike"))}:
    extra = set(series.get(name, {})) - want_keys.get(name, set())
    if extra:
        bad("%s: unexpected series %s" % (name, sorted(extra)[:3]))

for p in problems[:20]:
    print(p)
sys.exit(1 if problems else 0)
EOF
}

# lint OUT.prom: promtool exits 0 and says nothing (a lint remark is a failure too).
lint() {
	local out
	out=$(promtool check metrics <"$1" 2>&1)
	local rc=$?
	[ -n "$out" ] && echo "$out" | head -5 | sed 's/^/# /'
	[ $rc -eq 0 ] && [ -z "$out" ]
}

plan 26
cd "$WORK" || exit 1
diag "$(promtool --version 2>&1 | head -1)"

# A plain run, one with the net probe's results and counters, and a rotating load schedule
# (phases, per-phase results and aggregates).
"$RTSOAK" run --loops 300 --interval 100us -q -o a.json 2>/dev/null
ok $? "run: timer"
"$RTSOAK" run --loops 300 --interval 100us --probes timer,net -q -o b.json 2>/dev/null
ok $? "run: timer and net"
"$RTSOAK" run --loads cpu --schedule rotate --phase-duration 1s --duration 3s -q -o c.json 2>/dev/null
ok $? "run: rotating load phases"
# --on-spike with a threshold every sample passes: a command that fails, for the first spike,
# the others skipped by the interval or while it ran.
"$RTSOAK" run --loops 300 --interval 100us --spike-threshold 1ns --on-spike 'exit 3' -q \
	-o d.json 2>/dev/null
ok $? "run: --on-spike"
for x in a b c d; do
	"$RTSOAK" report $x.json --prom $x.prom
	ok $? "$x: rtsoak report --prom exits 0"
	lint $x.prom
	ok $? "$x: promtool check metrics accepts it without remarks"
	check_prom $x.json $x.prom
	ok $? "$x: every value and label set matches the JSON"
done
grep -q 'phase="cpu"' c.prom && ! grep -q 'cpu="all"' c.prom &&
	[ "$(jget c.json 'len(r["aggregates"]) > 0')" = true ]
ok $? "c: per-phase series are there, the report's aggregates are not (no cpu=\"all\")"

grep -qx 'rtsoak_on_spike_failures_total{run="d"} [1-9][0-9]*' d.prom &&
	[ "$(jget d.json 'r["on_spike"]["failed"] >= 1 and sum(r["on_spike"]["skipped"].values()) >= 1')" = true ] &&
	! grep -q rtsoak_on_spike a.prom
ok $? "d: the failed command and the skipped spikes are counted; a run without --on-spike has none"

"$RTSOAK" report a.json --prom - | cmp -s - a.prom
ok $? "--prom - writes the same text to stdout (and the output is deterministic)"

# A checkpoint of a run that never finished: state running.
"$RTSOAK" run --duration 30s --checkpoint 1s -q -o r.json 2>/dev/null &
pid=$!
for _ in $(seq 100); do
	[ -f r.json ] && [ "$(jget r.json 'r["run"]["status"]')" = running ] && break
	sleep 0.1
done
{
	kill -9 $pid
	wait $pid
} 2>/dev/null # no "Killed" from the shell
"$RTSOAK" report r.json --prom r.prom && lint r.prom && check_prom r.json r.prom
ok $? "running checkpoint converts and lints"
grep -qx 'rtsoak_run_state{run="r",state="running"} 1' r.prom
ok $? "running checkpoint: rtsoak_run_state{run=\"r\",state=\"running\"} 1"

# A result without samples gives its counters but no statistics (no NaN), and label values
# are escaped: backslash, double quote and newline in the system snapshot.
"$PYTHON3" - a.json z.json <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
for res in r["results"][:1] + [a for a in r["aggregates"] if a["probe"] == r["results"][0]["probe"]]:
    res.update(count=0, missed=0, top=[], histogram=[])
    for k in list(res):
        if k.endswith("_ns"):
            res[k] = None
r["system"]["cpu_model"] = 'Odd "CPU" \\ model\nline 2'
json.dump(r, open(sys.argv[2], "w"), indent=2)
EOF
"$RTSOAK" report z.json --prom z.prom && lint z.prom && check_prom z.json z.prom
ok $? "empty result and awkward label value: lints and matches"
! grep -Eq ' [-+]?(NaN|Inf)$' z.prom && grep -q 'cpu_model="Odd \\"CPU\\" \\\\ model\\nline 2"' z.prom
ok $? "no NaN, label value escaped"

err=$("$RTSOAK" report missing.json --prom x.prom 2>&1)
rc=$?
[ $rc -eq 2 ] && [ ! -e x.prom ]
ok $? "missing report: exit 2, nothing written ($err)"
err=$("$RTSOAK" report a.json --prom /nonexistent-dir/x.prom 2>&1)
rc=$?
[ $rc -eq 2 ] && [ "$(echo "$err" | wc -l)" -eq 1 ] && echo "$err" | grep -q "/nonexistent-dir/x.prom"
ok $? "unwritable path: exit 2, one line naming it ($err)"
err=$("$RTSOAK" report a.json --prom 2>&1)
ok $(($? != 2)) "--prom without a value: exit 2 ($err)"
done_testing
