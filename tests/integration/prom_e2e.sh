#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --prom end to end: a real node_exporter (textfile collector on a temp dir, loopback) and a real
# Prometheus server (temp storage, 1 s scrapes, loopback), both Debian's (quickstart check takes
# the binaries out of the packages into build/tools: no service is installed or started), read
# rtsoak's live textfile.  Through the Prometheus HTTP API:
#  - rtsoak_phase_seconds_total grows while the run runs (the bug: it stayed 0 until the end);
#  - histogram_quantile() over the scraped buckets lands in the 1-2-5 bucket that holds the
#    report's own percentile, and the summary's quantile="0.999" is the report's p99.9;
#  - the windowed maximum follows a spike load: high while its phase runs, down again once the
#    window has slid past it, while the run's maximum stays up;
#  - at the end the run's status changes (--prom-keep: status="complete", state running 0) or,
#    by default, its series end; a kept baseline beside a live run: both runs scraped, no
#    collision, node_textfile_scrape_error 0.
# Both servers are stopped at the end (trap).  Latencies are the machine's: the only bound is
# the spike load's own burst, which holds the probe's CPU at a higher SCHED_FIFO priority.
. "$(dirname "$0")/lib.sh"
require_root
for t in prometheus prometheus-node-exporter; do
	command -v $t >/dev/null || skip_all "$t not found (contrib/quickstart.sh check puts it in build/tools)"
done
plan 14
cd "$WORK" || exit 1
diag "$(prometheus --version 2>&1 | head -1); $(prometheus-node-exporter --version 2>&1 | head -1)"

free_port() { "$PYTHON3" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
NE=$(free_port) PR=$(free_port)
mkdir -p tf data
cat >prometheus.yml <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$NE']
EOF
prometheus-node-exporter --web.listen-address="127.0.0.1:$NE" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$WORK/tf" >ne.log 2>&1 &
ne_pid=$!
prometheus --config.file=prometheus.yml --storage.tsdb.path="$WORK/data" \
	--web.listen-address="127.0.0.1:$PR" >prom.log 2>&1 &
pr_pid=$!
trap 'kill $ne_pid $pr_pid 2>/dev/null; wait $ne_pid $pr_pid 2>/dev/null; rm -rf "$WORK"' EXIT

# q EXPR: the instant query's result as "labels value" lines (python: json.dumps of the metric).
q() {
	"$PYTHON3" - "$PR" "$1" <<'EOF'
import json, sys, urllib.parse, urllib.request
u = "http://127.0.0.1:%s/api/v1/query?query=%s" % (sys.argv[1], urllib.parse.quote(sys.argv[2]))
d = json.load(urllib.request.urlopen(u, timeout=5))
for x in d["data"]["result"]:
    print(json.dumps(x["metric"], sort_keys=True), x["value"][1])
EOF
}
qv() { q "$1" 2>/dev/null | awk '{ print $NF }' | head -1; }
up() { [ "$(qv 'up{job="node"}')" = 1 ]; }
wait_until 60 up
ok $? "node_exporter and Prometheus are up, the target is scraped (ports $NE, $PR)"

# Phases: idle 8 s, the spike load 8 s (30 ms bursts every 500 ms on the probe's CPU, above
# its priority), idle 8 s; the window is 2 s of 1 s series intervals.
"$RTSOAK" run --cpus 0 --probes timer --interval 1ms --load-cpus 0 --loads spike:burst=30ms:period=500ms \
	--schedule rotate --phase-duration 8s --duration 24s --series-interval 1s --prom-window 2s \
	--prom "$WORK/tf/base.prom" --prom-keep --run-name base -q -o base.json 2>run.err &
pid=$!
has_run() { [ -n "$(q "rtsoak_run_info{run=\"$1\",status=\"$2\"}" 2>/dev/null)" ]; }
wait_until 30 has_run base running
ok $? "the live run is scraped: rtsoak_run_info{run=\"base\",status=\"running\"}"
p1=$(qv 'sum(rtsoak_phase_seconds_total{run="base"})')
sleep 3
p2=$(qv 'sum(rtsoak_phase_seconds_total{run="base"})')
"$PYTHON3" -c 'import sys; a, b = map(float, sys.argv[1:]); sys.exit(not (a > 0 and b >= a + 2))' "${p1:-0}" "${p2:-0}"
ok $? "phase_seconds_total summed over the phases grows during the run ($p1 s, 3 s later $p2 s)"
t_start=$(date +%s)
wait $pid
rc=$?
t_end=$(date +%s)
ok $rc "the run ends with 0 ($(head -c 300 run.err))"

wait_until 15 has_run base complete
ok $? "at the end the kept textfile says status=\"complete\""
[ "$(qv 'rtsoak_run_state{run="base",state="running"}')" = 0 ] &&
	[ "$(qv 'rtsoak_run_state{run="base",state="complete"}')" = 1 ]
ok $? "rtsoak_run_state: running 0, complete 1"

# The percentiles: histogram_quantile over the last scrape's buckets against the report.
"$PYTHON3" - base.json "$PR" <<'EOF' >quant.out 2>&1
import json, sys, urllib.parse, urllib.request
from decimal import Decimal
r = json.load(open(sys.argv[1]))
res = [x for x in r["results"] if x["probe"] == "timer" and x["cpu"] == 0 and x["phase"] == "all"][0]
def q(e):
    u = "http://127.0.0.1:%s/api/v1/query?query=%s" % (sys.argv[2], urllib.parse.quote(e))
    return json.load(urllib.request.urlopen(u, timeout=5))["data"]["result"]
LE = [m * 10**e for e in range(3, 9) for m in (1, 2, 5)] + [10**9]
bad = 0
for qt, key in ((0.5, "p50_ns"), (0.99, "p99_ns"), (0.999, "p99_9_ns")):
    got = float(q('histogram_quantile(%g, rtsoak_latency_seconds_bucket{run="base",cpu="0",phase="all"})' % qt)[0]["value"][1])
    want = res[key]
    lo = max([0] + [b for b in LE if b < want])
    hi = min([b for b in LE if b >= want] or [float("inf")])
    ok = lo / 1e9 <= got <= hi / 1e9
    bad += not ok
    print("q%g: histogram_quantile %.6f s, report %.6f s, its bucket (%g, %g] s: %s" % (qt, got, want / 1e9, lo / 1e9, hi / 1e9, "ok" if ok else "OUTSIDE"))
s = q('rtsoak_latency_quantiles_seconds{run="base",cpu="0",phase="all",quantile="0.999"}')
sv = Decimal(s[0]["value"][1]) if s else None
print("summary 0.999: %s s, report %s ns" % (sv, res["p99_9_ns"]))
bad += sv is None or sv * 10**9 != res["p99_9_ns"]
c = q('rtsoak_latency_seconds_count{run="base",cpu="0",phase="all"}')
bad += not c or int(c[0]["value"][1]) != res["count"]
print("count %s, report %d" % (c[0]["value"][1] if c else None, res["count"]))
sys.exit(1 if bad else 0)
EOF
ok $? "histogram_quantile(0.5, 0.99, 0.999) in the report's buckets, summary p99.9 and _count exact ($(tr '\n' ';' <quant.out))"

# The windowed maximum over the run, one point a second, against the phases.
"$PYTHON3" - base.json "$PR" "$t_start" "$t_end" <<'EOF' >window.out 2>&1
import json, sys, urllib.parse, urllib.request
r = json.load(open(sys.argv[1]))
pr, t0, t1 = sys.argv[2], int(sys.argv[3]) - 30, int(sys.argv[4]) + 2
def rng(e):
    u = "http://127.0.0.1:%s/api/v1/query_range?query=%s&start=%d&end=%d&step=1" % (pr, urllib.parse.quote(e), t0, t1)
    res = json.load(urllib.request.urlopen(u, timeout=5))["data"]["result"]
    return [(int(t), float(v)) for t, v in res[0]["values"]] if res else []
w = rng('rtsoak_latency_window_max_seconds{run="base",cpu="0"}')
ph = rng('rtsoak_phase_seconds_total{run="base",phase=~"spike.*"}')
mx = rng('rtsoak_latency_max_seconds{run="base",cpu="0",phase="all"}')
# the spike phase ran where its phase time grew; the last idle phase after it
grow = [t for (t, v), (_, v0) in zip(ph[1:], ph) if v > v0]
if not grow or not w:
    print("no spike phase (%d points) or no window gauge (%d points)" % (len(grow), len(w)))
    sys.exit(1)
burst = 0.030
during = max(v for t, v in w if grow[0] <= t <= grow[-1])
# after the spike phase plus the window and one interval, and one more for the scrape
after = [v for t, v in w if t >= grow[-1] + 4]
run_max = [v for t, v in mx if t >= grow[-1] + 4]
print("spike phase %d..%d: window max %.1f ms; after it: min %.1f ms over %d points, run max %.1f ms"
      % (grow[0], grow[-1], during * 1e3, min(after or [0]) * 1e3, len(after), min(run_max or [0]) * 1e3))
sys.exit(0 if during >= 0.8 * burst and after and min(after) < 0.8 * burst and min(run_max) >= 0.8 * burst else 1)
EOF
ok $? "the windowed max rises with the spike load and falls after it; the run's max stays ($(cat window.out))"

# A second run, default: its textfile goes at the end, and with it its series; the kept
# baseline beside it is scraped too, without a collision.
"$RTSOAK" run --cpus 0 --probes timer --duration 8s --prom "$WORK/tf/live.prom" -q -o live.json 2>live.err &
pid=$!
wait_until 20 has_run live running
ok $? "the second run (run=\"live\", its report's name) is scraped"
[ -n "$(q 'rtsoak_run_info{run="base",status="complete"}')" ] &&
	[ "$(qv 'node_textfile_scrape_error')" = 0 ]
ok $? "the kept baseline beside it is scraped too, node_textfile_scrape_error 0"
[ "$(q 'count by (run) (rtsoak_latency_max_seconds{cpu="0",phase="all"})' | wc -l)" -eq 2 ]
ok $? "two runs, two sets of series (count by run)"
wait $pid
ok $? "the second run ends with 0 ($(head -c 300 live.err))"
[ ! -e tf/live.prom ] && [ -e tf/base.prom ]
ok $? "its textfile is removed, the kept one is still there"
gone() { [ -z "$(q 'rtsoak_run_info{run="live"}')" ]; }
wait_until 15 gone
ok $? "its series end in Prometheus (no rtsoak_run_info{run=\"live\"})"
done_testing
