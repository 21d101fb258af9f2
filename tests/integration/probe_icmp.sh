#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The icmp probe (icmp:target=HOST): ICMP echo round trips from two network
# namespaces of this test's own, B (the prober) and A (the peer, answered by
# A's kernel: no rtsoak there), joined by a veth pair with IPv4 and IPv6
# addresses.  To 127.0.0.1 (B's own loopback): icmp, icmp.stack and
# icmp.wakeup on every CPU, exact --loops counts, nothing lost; to A over
# IPv4 and IPv6; A stops answering mid-run: lost grows, the run completes and
# sent = received + late + lost + pending; a responder of the test's own
# answers some echoes late and some twice; both socket kinds (raw as root
# while B's ping_group_range admits no group, datagram once it admits ours,
# and as nobody, where without it the probe cannot run: exit 2); the route
# goes away mid-run; bad targets exit 2 with one line before measuring.
# ping_group_range and icmp_echo_ignore_all are per network namespace:
# nothing leaks.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema
command -v ip >/dev/null || skip_all "ip (iproute2) is not installed"
command -v setpriv >/dev/null || skip_all "setpriv (util-linux) is not installed"

A=rtsoak-ia-$$
B=rtsoak-ib-$$
VA=ria$$
VB=rib$$
X=$(($$ % 200 + 20))
IP_A=10.232.$X.1
IP_B=10.232.$X.2
IP6_A=fd32:$X::1
IP6_B=fd32:$X::2
run_pid=""
resp_pid=""

cleanup() {
	[ -n "$run_pid" ] && kill -TERM "$run_pid" 2>/dev/null && wait "$run_pid" 2>/dev/null
	[ -n "$resp_pid" ] && kill -TERM "$resp_pid" 2>/dev/null && wait "$resp_pid" 2>/dev/null
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

ip netns add "$A" 2>/dev/null || skip_all "cannot create network namespaces (ip netns add failed)"
ip netns add "$B" || skip_all "cannot create a second network namespace"
if ! ip link add "$VA" netns "$A" type veth peer name "$VB" netns "$B" 2>/dev/null; then
	skip_all "cannot create a veth pair (no veth support?)"
fi
ip -n "$A" link set lo up && ip -n "$B" link set lo up &&
	ip -n "$A" addr add "$IP_A/24" dev "$VA" && ip -n "$B" addr add "$IP_B/24" dev "$VB" &&
	ip -n "$A" addr add "$IP6_A/64" dev "$VA" nodad && ip -n "$B" addr add "$IP6_B/64" dev "$VB" nodad &&
	ip -n "$A" link set "$VA" up && ip -n "$B" link set "$VB" up ||
	skip_all "cannot configure the veth pair"

inA() { ip netns exec "$A" "$@"; }
inB() { ip netns exec "$B" "$@"; }
# as_nobody CMD...: in B, as nobody without groups (not root: no CAP_NET_RAW)
as_nobody() { inB setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
# set_in NS KEY VALUE: a sysctl of that namespace only (/proc/sys/net is the
# writer's network namespace's)
set_in() { ip netns exec "$1" sh -c 'echo "$2" >"/proc/sys/net/$1"' sh "$2" "$3"; }

# icmp_check FILE KIND: the invariants of an icmp report whose threads all
# used socket KIND (raw or dgram); prints problems.
icmp_check() {
	"$PYTHON3" - "$1" "$2" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
kind = sys.argv[2]
bad = []
# One thread's results are consecutive: icmp, icmp.stack, icmp.wakeup (a
# run with two icmp probes has each name twice per CPU).
res = [x for x in r["results"] if x["phase"] == "all"]
names = [x["probe"] for x in res]
if not res or names != ["icmp", "icmp.stack", "icmp.wakeup"] * (len(res) // 3):
    bad.append("results: %s" % names)
    res = []
threads = [res[i:i + 3] for i in range(0, len(res), 3)]
for t, s, w in threads:
    c = t["cpu"]
    if not t["cpu"] == s["cpu"] == w["cpu"]:
        bad.append("cpu %d: the parts are on CPUs %d, %d" % (c, s["cpu"], w["cpu"]))
    if not t["count"] == s["count"] == w["count"]:
        bad.append("cpu %d: counts differ: %d %d %d" % (c, t["count"], s["count"], w["count"]))
    if t["count"]:
        if t["min_ns"] < s["min_ns"] + w["min_ns"] or t["max_ns"] > s["max_ns"] + w["max_ns"]:
            bad.append("cpu %d: the parts do not bracket the total (min %d %d %d, max %d %d %d)" % (
                c, t["min_ns"], s["min_ns"], w["min_ns"], t["max_ns"], s["max_ns"], w["max_ns"]))
        if abs(t["mean_ns"] - s["mean_ns"] - w["mean_ns"]) > 1002:
            bad.append("cpu %d: mean %d != %d + %d" % (c, t["mean_ns"], s["mean_ns"], w["mean_ns"]))
    k = t.get("counters") or {}
    if k.get("received") != t["count"]:
        bad.append("cpu %d: received %s but %d samples" % (c, k.get("received"), t["count"]))
    if k.get("sent", -1) != k.get("received", 0) + k.get("late", 0) + k.get("lost", 0) + k.get("pending", 0):
        bad.append("cpu %d: sent != received + late + lost + pending: %s" % (c, k))
    if (k.get("socket_raw"), k.get("socket_dgram")) != ((1, 0) if kind == "raw" else (0, 1)):
        bad.append("cpu %d: not a %s socket: %s" % (c, kind, k))
    # Every raw socket sees every echo reply of the namespace: the BPF
    # filter on the identifier keeps the other CPUs' replies out.
    if k.get("foreign") != 0:
        bad.append("cpu %d: foreign replies %s" % (c, k.get("foreign")))
    for x in (s, w):
        if (x.get("counters") or {}).get("untimestamped", 1) and t["count"]:
            bad.append("cpu %d %s: replies without a kernel timestamp" % (c, x["probe"]))
    for x in (s, w):
        if x.get("counters", {}).get("sent") != k.get("sent"):
            bad.append("cpu %d %s: counters differ from icmp's" % (c, x["probe"]))
series = sorted((x["probe"], x["cpu"]) for x in r.get("series", []))
if series != sorted(("icmp", t["cpu"]) for t, s, w in threads):
    bad.append("time series: %s (expected icmp only, on every CPU)" % series)
for b in bad:
    print("# " + b)
sys.exit(1 if bad else 0)
EOF
}
icmp() { jget "$1" "[x['counters']['$2'] for x in r['results'] if x['probe'] == 'icmp' and x['phase'] == 'all']"; }
p50() { jget "$1" "[x['p50_ns'] for x in r['results'] if x['probe'] == '$2' and x['phase'] == 'all']"; }
expect_cpus=$("$PYTHON3" -c 'import os; print(sorted(os.sched_getaffinity(0)))')

plan 49
cd "$WORK" || exit 1
[ "$(inB cat /proc/sys/net/ipv4/ping_group_range | tr -s '\t ' ' ')" = "1 0" ]
ok $? "B's ping_group_range admits no group: root gets raw sockets"

# --- (1) to 127.0.0.1: exact --loops counts, nothing lost
inB "$RTSOAK" run --probes icmp:target=127.0.0.1 --loops 500 -q -o lo.json 2>err1
ok $? "run --probes icmp:target=127.0.0.1 --loops 500 exits 0 ($(head -c 300 err1))"
validate lo.json
ok $? "its report is schema-valid"
[ "$(jget lo.json "sorted(x['cpu'] for x in r['results'] if x['probe'] == 'icmp' and x['phase'] == 'all')")" = "$expect_cpus" ]
ok $? "an icmp result on every CPU $expect_cpus"
icmp_check lo.json raw
ok $? "icmp, icmp.stack, icmp.wakeup agree; raw sockets; no foreign reply; time series of icmp only"
[ "$(jget lo.json "sorted(set((x['counters']['sent'], x['counters']['received'], x['count'], x['counters']['lost'], x['counters']['late'], x['counters']['pending']) for x in r['results'] if x['probe'] == 'icmp'))")" = '[[500, 500, 500, 0, 0, 0]]' ]
ok $? "sent = received = samples = 500 per CPU, none lost, late or pending ($(icmp lo.json sent) sent)"
diag "127.0.0.1 icmp/icmp.stack/icmp.wakeup p50 (ns): $(p50 lo.json icmp) $(p50 lo.json icmp.stack) $(p50 lo.json icmp.wakeup)"

# --- (2) to A, a peer in another namespace: IPv4 and IPv6, raw sockets
inB ip route get "$IP_A" 2>/dev/null | grep -q "dev $VB"
ok $? "B routes $IP_A over the veth pair, nowhere else"
inB "$RTSOAK" run --probes icmp:target="$IP_A" --duration 2s -q -o v4.json 2>err2
ok $? "run --probes icmp:target=$IP_A exits 0 ($(head -c 300 err2))"
validate v4.json
ok $? "its report is schema-valid"
icmp_check v4.json raw
ok $? "IPv4 peer: the split adds up, raw sockets, counters add up"
[ "$(jget v4.json "all(x['counters']['received'] > 1500 and x['counters']['lost'] <= 0.02 * x['counters']['sent'] + 5 for x in r['results'])")" = true ]
ok $? "IPv4 peer: > 1500 answers per CPU, nothing much lost (received $(icmp v4.json received), lost $(icmp v4.json lost))"
# The clock offset is the family's: measured before the run and about once
# a second by one thread, whose split results carry its counters.
[ "$(jget v4.json "[x['counters']['clock_offset_updates'] >= 2 for x in r['results'] if x['probe'] == 'icmp.stack' and 'clock_offset_updates' in x['counters']]")" = '[true]' ]
ok $? "IPv4 peer: the clock offset re-measured during the 2 s run, by one thread ($(jget v4.json "[x['counters'].get('clock_offset_updates') for x in r['results'] if x['probe'] == 'icmp.stack']"))"
diag "$IP_A icmp/icmp.stack/icmp.wakeup p50 (ns): $(p50 v4.json icmp) $(p50 v4.json icmp.stack) $(p50 v4.json icmp.wakeup)"
inB "$RTSOAK" run --probes "icmp:target=[$IP6_A]" --duration 1s -q -o v6.json 2>err3
ok $? "run --probes icmp:target=[$IP6_A] exits 0 ($(head -c 300 err3))"
icmp_check v6.json raw
ok $? "IPv6 peer: the split adds up, raw sockets, counters add up"
[ "$(jget v6.json "all(x['counters']['received'] > 700 for x in r['results'])")" = true ]
ok $? "IPv6 peer: > 700 answers per CPU (received $(icmp v6.json received))"
[ "$(jget v6.json "r['config']['probes']")" = "[\"icmp:target=[$IP6_A]\"]" ]
ok $? "the report's config names the probe as given"

# --- (3) the peer stops answering 1 s into a 3 s run
# (--warmup 0: the peer stops at a time from the start of the process)
inB "$RTSOAK" run --probes icmp:target="$IP_A" --duration 3s --warmup 0 -q -o stop.json 2>err4 &
run_pid=$!
sleep 1
set_in "$A" ipv4/icmp_echo_ignore_all 1
wait $run_pid
rc=$?
run_pid=""
ok $rc "run whose peer stops answering exits 0 ($(head -c 300 err4))"
validate stop.json
ok $? "its report is schema-valid"
[ "$(jget stop.json 'r["run"]["status"]')" = complete ]
ok $? "status complete"
[ "$(jget stop.json "all(x['counters']['received'] > 300 and x['counters']['lost'] > 100 for x in r['results'])")" = true ]
ok $? "answers before, losses after (received $(icmp stop.json received), lost $(icmp stop.json lost))"
icmp_check stop.json raw
ok $? "sent = received + late + lost + pending on every CPU (sent $(icmp stop.json sent), pending $(icmp stop.json pending))"
# Without answers, sends follow the socket timeout instead of the interval:
# the slots skipped are missed (see icmp_run).  Every 1 ms slot of the run
# (3 s and the few ms the stop takes) is either sent or missed, whenever the
# peer stopped.
[ "$(jget stop.json "all(r['run']['duration_ns'] // 10**6 - 50 <= x['counters']['sent'] + x['missed'] <= r['run']['duration_ns'] // 10**6 + 1 for x in r['results'] if x['probe'] == 'icmp')")" = true ]
ok $? "every slot of the run is sent or missed ($(jget stop.json "r['run']['duration_ns']") ns; missed $(jget stop.json "[x['missed'] for x in r['results'] if x['probe'] == 'icmp' and x['phase'] == 'all']"))"
# A peer that never answers: 100 % loss, a warning, still status complete.
inB "$RTSOAK" run --probes icmp:target="$IP_A" --duration 1s -q -o none.json 2>err5
ok $? "run to a peer that does not answer exits 0 ($(head -c 300 err5))"
[ "$(jget none.json "[r['run']['status']] + sorted(set((x['count'], x['counters']['received'], x['counters']['lost'] > 20, x['counters']['lost'] + x['counters']['pending'] == x['counters']['sent']) for x in r['results']))")" = '["complete", [0, 0, true, true]]' ]
ok $? "no answer: 0 received, all lost but the pending (lost $(icmp none.json lost), pending $(icmp none.json pending))"
jget none.json "r['run']['warnings']" | grep -q "icmp on CPU [0-9]*: 100 % loss to $IP_A"
ok $? "and the report warns of 100 % loss"

# A peer that answers late and twice: A's kernel is silent and a responder
# of the test's own (raw socket, in A) answers every echo whose sequence is
# 0 mod 10 twice, 5 mod 10 after 1.2 s (past the 1 s timeout), the rest at
# once.  3 s at 10 ms: about 30 echoes per CPU delayed, 18 of them answered
# before the end (late), the rest still out (pending, or lost if older than
# the pending window).
cat >responder.py <<'EOF'
import heapq, select, socket, struct, time
def csum(b):
    b += b"\0" * (len(b) % 2)
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
q = []
print("ready", flush=True)
while True:
    now = time.monotonic()
    while q and q[0][0] <= now:
        _, _, pkt, dst = heapq.heappop(q)
        s.sendto(pkt, (dst, 0))
    if not select.select([s], [], [], max(0.0, q[0][0] - now) if q else 1.0)[0]:
        continue
    data, (src, _) = s.recvfrom(2048)
    icmp = data[(data[0] & 15) * 4:]
    if len(icmp) < 8 or icmp[0] != 8:
        continue
    ident, seq = struct.unpack("!HH", icmp[4:8])
    body = struct.pack("!BBHHH", 0, 0, 0, ident, seq) + icmp[8:]
    body = body[:2] + struct.pack("!H", csum(body)) + body[4:]
    if seq % 10 == 5:
        heapq.heappush(q, (time.monotonic() + 1.2, seq, body, src))
        continue
    for _ in range(2 if seq % 10 == 0 else 1):
        s.sendto(body, (src, 0))
EOF
ip netns exec "$A" "$PYTHON3" responder.py >resp.out 2>&1 &
resp_pid=$!
for _ in $(seq 50); do grep -q ready resp.out && break; sleep 0.1; done
inB "$RTSOAK" run --probes icmp:target="$IP_A" --interval 10ms --duration 3s -q -o late.json 2>err9
ok $? "run to a peer that answers late and twice exits 0 ($(head -c 300 err9) $(head -c 200 resp.out))"
kill -TERM "$resp_pid" 2>/dev/null
wait "$resp_pid" 2>/dev/null
resp_pid=""
icmp_check late.json raw
ok $? "late and duplicate answers: sent = received + late + lost + pending, nothing foreign"
# Of n consecutive sequence numbers floor(n/10) or ceil(n/10) end in 5, and
# the counted ones need not start at a multiple of ten (the warm-up's are
# not counted): at least sent // 10 delayed, at most ceil(sent / 10), + 2 for the
# answers to warm-up echoes that arrive late in the counted time.
[ "$(jget late.json "all(x['counters']['late'] >= 10 and x['counters']['sent'] // 10 <= x['counters']['late'] + x['counters']['lost'] + x['counters']['pending'] <= (x['counters']['sent'] + 9) // 10 + 2 and x['counters']['reordered'] >= x['counters']['late'] and x['max_ns'] < 10**9 for x in r['results'] if x['probe'] == 'icmp')")" = true ]
ok $? "every delayed echo is late, pending or lost, none in the statistics (late $(icmp late.json late), pending $(icmp late.json pending), lost $(icmp late.json lost) of $(icmp late.json sent))"
[ "$(jget late.json "all((x['counters']['sent'] + 9) // 10 - 2 <= x['counters']['duplicate'] <= (x['counters']['sent'] + 9) // 10 for x in r['results'] if x['probe'] == 'icmp')")" = true ]
ok $? "every second answer is a duplicate (duplicate $(icmp late.json duplicate))"
set_in "$A" ipv4/icmp_echo_ignore_all 0

# --- (4) datagram sockets: once B's ping_group_range admits the group
set_in "$B" ipv4/ping_group_range "0 2147483647"
inB "$RTSOAK" run --probes "icmp:target=$IP_A,icmp:target=$IP6_A" --duration 1s -q -o dg.json 2>err6
ok $? "root, ping_group_range 0-2147483647: IPv4 and IPv6 in one run exit 0 ($(head -c 300 err6))"
icmp_check dg.json dgram
ok $? "datagram sockets on every thread; the split adds up; counters add up"
[ "$(jget dg.json "all(x['counters']['received'] > 700 for x in r['results'])")" = true ]
ok $? "both families answered (received $(icmp dg.json received))"
mkdir -m 777 nobody
as_nobody "$RTSOAK" run --probes icmp:target="$IP_A" --no-rt --duration 1s -q -o nobody/dg.json 2>err7
ok $? "as nobody (--no-rt): exits 0 ($(head -c 300 err7))"
icmp_check nobody/dg.json dgram
ok $? "as nobody: datagram sockets, counters add up (received $(icmp nobody/dg.json received))"
set_in "$B" ipv4/ping_group_range "1 0"
as_nobody "$RTSOAK" run --probes icmp:target="$IP_A" --no-rt --duration 3s -q -o nobody/no.json 2>err8
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <err8)" -eq 1 ] && grep -q "^rtsoak: --probes: icmp: cannot open an ICMP socket: .*ping_group_range is '1 0'.*CAP_NET_RAW" err8 &&
	[ ! -e nobody/no.json ]
ok $? "as nobody without ping_group_range: exit 2, one line, no report (rc $rc: $(cat err8))"

# --- the route goes away: B's end of the veth pair goes down 1 s into a
# 2 s run (last: it takes B's IPv6 address with it)
# (--warmup 0: the link goes down at a time from the start of the process)
inB "$RTSOAK" run --probes icmp:target="$IP_A" --duration 2s --warmup 0 -q -o down.json 2>err10 &
run_pid=$!
sleep 1
ip -n "$B" link set "$VB" down
wait $run_pid
rc=$?
run_pid=""
ok $rc "run whose route goes away exits 0 ($(head -c 300 err10))"
icmp_check down.json raw
ok $? "link down: counters add up (sent $(icmp down.json sent), lost $(icmp down.json lost))"
[ "$(jget down.json "[r['run']['status']] + [x['counters']['received'] > 300 and 0 < x['counters']['errors'] <= x['counters']['lost'] + x['counters']['pending'] for x in r['results'] if x['probe'] == 'icmp']")" = "[\"complete\", $(jget down.json "', '.join(['true'] * len([x for x in r['results'] if x['probe'] == 'icmp']))")]" ]
ok $? "link down: status complete, the refused sends in errors and, never answered, in lost or pending (errors $(icmp down.json errors), lost $(icmp down.json lost), received $(icmp down.json received))"

# --- the options table: interval= and timeout= of the spec, echoed
"$RTSOAK" run --probes icmp:target=127.0.0.1:interval=2ms:timeout=100ms --loops 100 -q -o opt.json 2>erro
ok $? "icmp:target=127.0.0.1:interval=2ms:timeout=100ms runs ($(head -c 300 erro))"
[ "$(jget opt.json "[r['config']['probe_intervals_ns']['icmp'], r['config']['probe_options']['icmp:target=127.0.0.1:interval=2ms:timeout=100ms'], 1.9e8 <= r['run']['duration_ns'] <= 4e8]")" = \
	'[2000000, {"target": "127.0.0.1", "interval": 2000000, "timeout": 100000000}, true]' ]
ok $? "its period is 2 ms (100 echoes in ~0.2 s) and the config echoes the options ($(jget opt.json "r['config']['probe_options']"))"

# --- (5) bad targets: exit 2, one line, before measuring (a 3 s run): in
# less than twice a whole one-sample run, measured here (not a wall-clock
# bound: a busy machine stretches both alike)
ref=$(ref_run_ms)
bad() {
	local spec=$1 want=$2 rc t0 ms
	t0=$(date +%s%N)
	inB "$RTSOAK" run --probes "$spec" --duration 3s -q -o bad.json 2>errb
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ $rc -eq 2 ] && [ "$(wc -l <errb)" -eq 1 ] && grep -q "^rtsoak: --probes: icmp: $want" errb &&
		[ ! -e bad.json ] && [ "$ref" -gt 0 ] && [ $ms -lt $((2 * ref)) ]
	ok $? "'$spec': exit 2, one line, no report (rc $rc, $ms ms, a one-sample run $ref ms: $(cat errb))"
}
bad icmp:target=no-such-host.invalid "target 'no-such-host.invalid': cannot resolve 'no-such-host.invalid'"
bad icmp:target=999.1.2.3 "target '999.1.2.3': cannot resolve"
bad icmp:target="$IP_A":80 "target '$IP_A:80': ICMP has no port"
bad "icmp:target=[$IP6_A" "target '\[$IP6_A': missing ']'"
bad icmp "option 'target' is required"
bad icmp:target= "target is empty"
bad icmp:interval=1ms "option 'target' is required"
bad icmp:port=7:target=127.0.0.1 "unknown option 'port' (options: target, interval, timeout)"
# No route from B: set-up fails on the probe threads, before measuring (3).
inB "$RTSOAK" run --probes icmp:target=192.0.2.1 --duration 3s -q -o bad.json 2>errb
rc=$?
[ $rc -eq 3 ] && grep -q "^rtsoak: icmp probe on CPU [0-9]*: cannot reach 192.0.2.1: Network is unreachable" errb &&
	[ ! -e bad.json ]
ok $? "no route to 192.0.2.1: exit 3, no report (rc $rc: $(head -1 errb))"
done_testing
