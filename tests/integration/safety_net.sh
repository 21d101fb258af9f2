#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A local user must not bend the net probe (issue 28, finding 1).  User
# nobody floods every UDP port of a loopback run (`ss -uln` shows them) from
# its own socket for 2 s: the receivers are connected to their sender, so
# the kernel drops the flood before it wakes a probe thread (foreign stays
# 0, the run is complete).  What still gets in (root forging the sender's
# source port with a raw socket) is counted: a few foreign packets are a
# warning, more than 1 % of a CPU's samples make run.status "disturbed", in
# the report, its text summary, its readers and `compare`.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema
command -v setpriv >/dev/null || skip_all "setpriv (util-linux) is not installed"

plan 26
cd "$WORK" || exit 1
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
ncpu=$(ncpus)

# socks PID: the process's UDP sockets, "FAMILY LOCALIP LPORT REMIP RPORT
# RXQUEUE" (bytes queued on it).
cat >socks.py <<'EOF'
import os, socket, sys
pid = sys.argv[1]
inodes = set()
for fd in os.listdir("/proc/%s/fd" % pid):
    try:
        link = os.readlink("/proc/%s/fd/%s" % (pid, fd))
    except OSError:
        continue
    if link.startswith("socket:["):
        inodes.add(link[8:-1])
def addr(h, v6):
    ip, port = h.split(":")
    raw = bytes.fromhex(ip)
    if v6:
        raw = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
        return socket.inet_ntop(socket.AF_INET6, raw), int(port, 16)
    return socket.inet_ntop(socket.AF_INET, raw[::-1]), int(port, 16)
for f, v6 in (("/proc/net/udp", False), ("/proc/net/udp6", True)):
    for line in open(f).readlines()[1:]:
        p = line.split()
        if p[9] in inodes:
            l, r = addr(p[1], v6), addr(p[2], v6)
            print(6 if v6 else 4, l[0], l[1], r[0], r[1], int(p[4].split(":")[1], 16))
EOF
socks() { "$PYTHON3" socks.py "$1" 2>/dev/null; }
# ready PID: the receivers and the sender are all up (old code: the sender
# is autobound at its first send, on the wildcard address).
ready() { [ "$(socks "$1" | wc -l)" -ge $((ncpu + 1)) ]; }

# The flood, as any user can: one unconnected socket, junk to every port
# for SECONDS, as fast as it goes.  Prints how many sends succeeded.
cat >flood.py <<'EOF'
import socket, sys, time
fam = socket.AF_INET6 if sys.argv[1] == "6" else socket.AF_INET
host, secs, ports = sys.argv[2], float(sys.argv[3]), [int(p) for p in sys.argv[4:]]
s = socket.socket(fam, socket.SOCK_DGRAM)
end, n, junk = time.monotonic() + secs, 0, b"\0" * 32
while time.monotonic() < end:
    for p in ports:
        try:
            s.sendto(junk, (host, p))
            n += 1
        except OSError:
            pass
print(n)
EOF

# foreign FILE: the net probe's foreign counters, "CPU:N ..." (phase all).
foreign() { jget "$1" "' '.join('%d:%d' % (x['cpu'], x['counters']['foreign']) for x in r['results'] if x['probe'] == 'net' and x['phase'] == 'all')"; }
foreign_sum() { jget "$1" "sum(x['counters']['foreign'] for x in r['results'] if x['probe'] == 'net' and x['phase'] == 'all')"; }
nwarn() { jget "$1" "len([w for w in r['run']['warnings'] if 'foreign packet' in w])"; }

# flood_run FAMILY HOST NAME: a 5 s loopback run flooded by nobody for 2 s.
flood_run() {
	local fam=$1 host=$2 name=$3
	"$RTSOAK" run --probes net --net-family "$fam" --duration 5s -q -o "$name.json" \
		2>"$name.err" &
	local pid=$!
	wait_until 20 ready $pid || diag "$name: the sockets never showed up"
	socks $pid >"$name.socks"
	# shellcheck disable=SC2046
	$AS_NOBODY "$PYTHON3" flood.py "$fam" "$host" 2 $(awk '{print $3}' "$name.socks" | sort -u) \
		>"$name.sent" 2>"$name.flood.err"
	socks $pid >"$name.after"
	wait $pid
	echo $? >"$name.rc"
}

# --- IPv4: nobody floods every port of the run
flood_run 4 127.0.0.1 v4
diag "v4 sockets: $(tr '\n' ';' <v4.socks)"
sent=$(cat v4.sent 2>/dev/null)
[ "${sent:-0}" -gt 1000 ]
ok $? "nobody sent the run's $(wc -l <v4.socks) UDP ports ${sent:-no} datagrams in 2 s ($(head -c 200 v4.flood.err))"
[ "$(cat v4.rc)" = 0 ] && validate v4.json
ok $? "the flooded run exits 0 with a schema-valid report ($(head -c 300 v4.err))"
# Every receiver is connected to the one sender's loopback address, and
# nothing of ours listens beyond loopback.
"$PYTHON3" - v4.socks "$ncpu" <<'EOF'
import sys
rows = [l.split() for l in open(sys.argv[1])]
conn = [r for r in rows if r[4] != "0"]
senders = {(r[3], r[4]) for r in conn}
bad = []
if len(conn) != int(sys.argv[2]):
    bad.append("%d connected receivers for %s CPUs" % (len(conn), sys.argv[2]))
if len(senders) != 1:
    bad.append("receivers connected to %s" % sorted(senders))
elif not any((r[1], r[2]) == next(iter(senders)) for r in rows):
    bad.append("nothing of ours at the sender address %s" % (next(iter(senders)),))
bad += ["bound to %s" % r[1] for r in rows if r[1] != "127.0.0.1"]
for b in bad:
    print("# " + b)
sys.exit(1 if bad else 0)
EOF
ok $? "each receiver is connected to the sender, everything on 127.0.0.1"
# The sender never reads: what the flood sent it must not pile up there.
sender=$(awk '$5 != 0 {print $4, $5; exit}' v4.socks)
[ -n "$sender" ] && [ "$(awk -v s="$sender" '$2 " " $3 == s {print $6}' v4.after)" = 0 ]
ok $? "right after the flood nothing is queued on the sender's socket ($(tr '\n' ';' <v4.after))"
[ "$(foreign_sum v4.json)" = 0 ]
ok $? "the kernel dropped the flood: foreign 0 on every CPU ($(foreign v4.json))"
[ "$(jget v4.json "r['run']['status']")" = complete ] && [ "$(nwarn v4.json)" = 0 ]
ok $? "status complete, no foreign warning ($(jget v4.json "r['run']['status']"))"
# (Not "nothing lost": the flood shares the loopback backlog of the CPU it
# runs on with the sender, and may crowd a datagram out there.)
[ "$(jget v4.json "all(x['counters']['received'] > 0 for x in r['results'] if x['probe'] == 'net' and x['phase'] == 'all')")" = true ]
ok $? "every receiver measured through the flood ($(jget v4.json "[(x['cpu'], x['counters']['received'], x['counters']['lost']) for x in r['results'] if x['probe'] == 'net' and x['phase'] == 'all']"))"

# --- IPv6 likewise
if ip -6 addr show dev lo 2>/dev/null | grep -q '::1/128'; then
	flood_run 6 ::1 v6
	sent=$(cat v6.sent 2>/dev/null)
	[ "${sent:-0}" -gt 1000 ] && [ "$(cat v6.rc)" = 0 ]
	ok $? "IPv6: nobody sent ${sent:-no} datagrams, the run exits 0 ($(head -c 200 v6.err))"
	[ "$(foreign_sum v6.json)" = 0 ] && [ "$(jget v6.json "r['run']['status']")" = complete ]
	ok $? "IPv6: foreign 0 ($(foreign v6.json)), status complete"
	[ "$(awk '$5 != 0' v6.socks | wc -l)" = "$ncpu" ]
	ok $? "IPv6: each receiver is connected"
else
	for i in 1 2 3; do skip "no ::1 on lo"; done
fi

# --- what still gets in: root forges the sender's source port
cat >spoof.py <<'EOF'
import socket, struct, sys, time
sport, n, dports = int(sys.argv[1]), int(sys.argv[2]), [int(p) for p in sys.argv[3:]]
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
junk, sent = b"\0" * 32, 0
for i in range(n):
    for d in dports:
        # UDP header, checksum 0 (none, IPv4): the kernel adds the IP header.
        s.sendto(struct.pack("!HHHH", sport, d, 8 + len(junk), 0) + junk, ("127.0.0.1", 0))
        sent += 1
    time.sleep(0.002)
print(sent)
EOF
# spoof_run NAME N [ARGS...]: a run (5 s, or ARGS) whose receivers each get
# N forged packets; its standard output in NAME.out.
spoof_run() {
	local name=$1 n=$2
	shift 2
	[ $# -gt 0 ] || set -- run --probes net --duration 5s -q
	"$RTSOAK" "$@" -o "$name.json" >"$name.out" 2>"$name.err" &
	local pid=$!
	wait_until 20 ready $pid || diag "$name: the sockets never showed up"
	socks $pid >"$name.socks"
	# The receivers: connected to the sender, whose port is the forged
	# source; unconnected on 127.0.0.1 in the old code, which took any.
	local sport recv
	sport=$(awk '$5 != 0 {print $5; exit}' "$name.socks")
	recv=$(awk '$5 != 0 {print $3}' "$name.socks")
	[ -n "$recv" ] || recv=$(awk '$2 == "127.0.0.1" {print $3}' "$name.socks")
	# shellcheck disable=SC2086
	"$PYTHON3" spoof.py "${sport:-9}" "$n" $recv >"$name.sent" 2>"$name.spoof.err"
	wait $pid
	echo $? >"$name.rc"
}

spoof_run few 3
[ "$(cat few.rc)" = 0 ] && validate few.json
ok $? "3 forged packets per receiver: exit 0, schema-valid ($(head -c 300 few.err))"
[ "$(foreign_sum few.json)" = "$(cat few.sent)" ] && [ "$(cat few.sent)" = $((3 * ncpu)) ]
ok $? "foreign counts each one: $(foreign few.json) for $(cat few.sent) sent ($(head -c 200 few.spoof.err))"
[ "$(nwarn few.json)" = "$ncpu" ] &&
	[ "$(jget few.json "all(' 3 foreign packet(s) woke the probe thread' in w and 'at most 1 %' in w for w in r['run']['warnings'] if 'foreign' in w)")" = true ]
ok $? "one warning per CPU with its count: $(jget few.json "[w for w in r['run']['warnings'] if 'foreign' in w]")"
[ "$(jget few.json "r['run']['status']")" = complete ]
ok $? "at most 1 % of the samples: status stays complete"

spoof_run many 200
[ "$(cat many.rc)" = 0 ] && validate many.json
ok $? "200 forged packets per receiver: exit 0, schema-valid ($(head -c 300 many.err))"
[ "$(foreign_sum many.json)" = "$(cat many.sent)" ] && [ "$(cat many.sent)" = $((200 * ncpu)) ]
ok $? "foreign counts each one: $(foreign many.json) for $(cat many.sent) sent"
[ "$(jget many.json "r['run']['status']")" = disturbed ]
ok $? "more than 1 % of the samples: status disturbed ($(jget many.json "r['run']['status']"))"
[ "$(jget many.json "len([w for w in r['run']['warnings'] if ' 200 foreign packet(s)' in w and 'the results are disturbed' in w])")" = "$ncpu" ]
ok $? "each CPU's warning says so: $(jget many.json "[w for w in r['run']['warnings'] if 'foreign' in w][:1]")"
"$RTSOAK" report many.json >many.txt 2>many.rerr
ok $? "report reads a disturbed run back ($(head -c 200 many.rerr))"
head -n 1 many.txt | grep -q ': disturbed, ' && grep -q '^warning: net on CPU [0-9]*: 200 foreign packet' many.txt
ok $? "the text summary says disturbed and warns: $(head -n 1 many.txt)"
"$RTSOAK" report many.json --json many2.json 2>/dev/null && [ "$(jget many2.json "r['run']['status']")" = disturbed ]
ok $? "the status survives a JSON round trip"
"$RTSOAK" report many.json --prom many.prom 2>/dev/null &&
	grep -q '^rtsoak_run_state{.*state="disturbed"} 1$' many.prom
ok $? "OpenMetrics: rtsoak_run_state{state=\"disturbed\"} 1"
"$RTSOAK" report many.json --lava 2>/dev/null | tail -n 1 | grep -qx 'rtsoak fail'
ok $? "--lava: a disturbed run is no pass"
"$RTSOAK" compare few.json many.json >cmp.txt 2>&1
grep -q 'many.json: the run was disturbed' cmp.txt
ok $? "compare warns that B was disturbed ($(grep -m1 disturbed cmp.txt))"
"$RTSOAK" report many.json --html many.html 2>/dev/null && grep -q 'data-status="disturbed"' many.html
ok $? "the HTML page carries the disturbed banner"

# ab: the comparison of the arms says the run was disturbed too.
T1=/proc/sys/vm/stat_interval # set to its own value: a no-op tweak
spoof_run ab 200 ab --set "$T1=$(cat $T1)" --rounds 1 --round-duration 2s --probes net
[ "$(cat ab.rc)" = 0 ] && [ "$(jget ab.json "r['run']['status']")" = disturbed ] &&
	[ "$(jget ab.json "len([w for w in r['ab']['comparison']['warnings'] if w.endswith('ab.json: the run was disturbed (see its warnings)')])")" = 1 ] &&
	grep -q 'ab.json: the run was disturbed' ab.out
ok $? "ab: status disturbed, and its comparison warns ($(cat ab.rc), $(jget ab.json "r['ab']['comparison']['warnings']" 2>&1 | head -c 300))"

done_testing
