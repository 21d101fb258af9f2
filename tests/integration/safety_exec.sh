#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# An exec load's processes (issue 28): a command that daemonizes (setsid,
# out of the worker's process group) must not outlive its start, nor the
# run, nor a SIGKILL of rtsoak; and the command must start with the signal
# dispositions and mask a shell gives it, not with the worker's ignored
# SIGINT, SIGHUP and SIGUSR2.
. "$(dirname "$0")/lib.sh"
require_root
"$RTSOAK" loads | grep -q "^exec:" || skip_all "the exec load is not registered"
command -v setsid >/dev/null || skip_all "setsid (util-linux) is not installed"

plan 8
cd "$WORK" || exit 1
trap 'p=$(tagged_pids); [ -n "$p" ] && kill -9 $p 2>/dev/null; rm -rf "$WORK"' EXIT
mkdir wd
# Unique durations: the processes are found by their tag (lib.sh) all the
# same, these only make a leftover recognisable in ps.
D1=300.$$1 D2=300.$$2 D3=300.$$3

# --- 1. a daemonizer, restarted every time it exits 0: every start leaves a
# setsid'd sleep (the old code: one per restart after the run)
rtsoak_tagged run --probes timer -D 2s --cpus 0 --workdir wd -q -o d.json \
	--loads "exec:cmd=setsid sleep $D1 & sleep $D2 & sleep 0.2; exit 0" 2>d.err
ok $? "daemonizer: the run succeeds ($(head -c 200 d.err))"
starts=$(jget d.json 'r["loads"][0]["ops"]')
[ "$starts" -ge 2 ]
ok $? "daemonizer: the command was started more than once ($starts starts)"
left=$(tagged_pids)
[ -z "$left" ]
ok $? "daemonizer: no process of the load is left after the run (left: ${left:-none})"
[ -n "$left" ] && kill -9 $left 2>/dev/null

# --- 1b. while it runs: a start's daemon dies with that start (the old code kept one more
# after every restart)
D4=300.$$4
$TAGGED "$RTSOAK" run --probes timer -D 4s --cpus 0 --workdir wd -q -o d2.json \
	--loads "exec:cmd=setsid sleep $D4 & sleep 0.2; exit 0" 2>d2.err &
rt=$!
most=0
while kill -0 $rt 2>/dev/null; do
	n=$(pgrep -fc "^sleep $D4\$")
	[ "$n" -gt "$most" ] && most=$n
	sleep 0.1
done
wait $rt
rc=$?
starts=$(jget d2.json 'r["loads"][0]["ops"]' 2>/dev/null)
[ $rc -eq 0 ] && [ "${starts:-0}" -ge 3 ] && [ "$most" -le 1 ]
ok $? "daemonizer: at most one of its daemons at any time during the run ($most at most, $starts starts, exit $rc)"

# --- 2. the command's signal state, and a SIGKILL of rtsoak while a daemon
# of the command runs
$TAGGED "$RTSOAK" run --probes timer -D 60s --cpus 0 --workdir wd -q -o k.json \
	--loads "exec:cmd=setsid sleep $D3 & exec sleep $D1" 2>k.err &
rt=$!
# the command's foreground process (the exec'd sleep): a child of the worker
fg_pid() {
	local p
	for p in $(tagged_pids); do
		grep -qx "sleep.$D1" <(tr '\0' '.' <"/proc/$p/cmdline" 2>/dev/null | sed 's/\.$//') &&
			echo "$p" && return 0
	done
	return 1
}
daemon_up() { pgrep -f "^sleep $D3\$" >/dev/null; }
if wait_until 20 fg_pid >/dev/null && wait_until 20 daemon_up; then
	p=$(fg_pid)
	ign=$(awk '/^SigIgn:/ {print $2}' "/proc/$p/status")
	blk=$(awk '/^SigBlk:/ {print $2}' "/proc/$p/status")
	[ "$ign" = 0000000000000000 ]
	ok $? "the command ignores no signal (SigIgn $ign)"
	[ "$blk" = 0000000000000000 ]
	ok $? "the command blocks no signal (SigBlk $blk)"
	kill -9 $rt
	wait $rt 2>/dev/null
	gone() { [ -z "$(tagged_pids)" ]; }
	wait_until $((10 * RTSOAK_TIME_SCALE)) gone
	ok $? "after a SIGKILL of rtsoak no process of the load is left (left: $(tagged_pids))"
else
	kill -9 $rt
	wait $rt 2>/dev/null
	ok 1 "the command did not start ($(head -c 200 k.err))"
	skip "the command did not start"
	skip "the command did not start"
fi

# --- 3. the worker exits as its command did: a signal stays a signal
rtsoak_tagged run --probes timer -D 2s --cpus 0 --workdir wd -q -o s.json \
	--loads 'exec:cmd=kill -USR1 $$' 2>s.err
[ "$(jget s.json 'r["loads"][0]["exits"][0]["status"]')" = "signal 10 (User defined signal 1)" ]
ok $? "a command killed by a signal is recorded as such ($(jget s.json 'r["loads"][0]["exits"][:1]'))"
done_testing
