#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# time_limit.sh TEST [ARGS...]: run one test of the suite with a time limit
# (RTSOAK_TEST_TIMEOUT seconds, default 600; needs bash >= 5.1 for
# `wait -n -p`).  A test that hangs would otherwise hold `make check` -- and
# CI -- until an outer limit kills everything and takes the logs with it.
# Past the limit this prints what every process of the test is doing
# (scheduling class, state, wait channel, kernel stack of each thread) and
# every real-time thread on the machine to the test's log, bails out (the
# TAP driver reports an ERROR) and kills the test's whole session.
set -u
limit=${RTSOAK_TEST_TIMEOUT:-600}

# The test gets a session of its own so that everything it started can be
# found and killed (rtsoak's load workers make their own process groups,
# but stay in the session).
setsid "$@" &
pid=$!
trap 'kill -TERM -- -"$pid" 2>/dev/null; exit 130' INT TERM HUP
sleep "$limit" </dev/null >/dev/null 2>&1 &
timer=$!
wait -n -p first "$pid" "$timer"
rc=$?
if [ "$first" = "$pid" ]; then
	kill "$timer" 2>/dev/null
	wait "$timer" 2>/dev/null
	exit "$rc"
fi

# in_session: pids of the test's session (its sid is its pid: setsid).
in_session() { ps -e -o pid=,sid= | awk -v sid="$pid" '$2 == sid { print $1 }'; }
{
	echo "time_limit: $1 still running after ${limit}s; what its processes are doing:"
	for p in $(in_session); do
		ps -o pid=,ppid=,stat=,cls=,rtprio=,etimes=,args= -p "$p" 2>/dev/null | sed 's/^/  /'
		for t in /proc/"$p"/task/*; do
			[ -d "$t" ] || continue
			echo "    thread ${t##*/} $(cat "$t/comm" 2>/dev/null):" \
				"$(awk '{ print "state " $3 }' "$t/stat" 2>/dev/null)," \
				"wchan $(cat "$t/wchan" 2>/dev/null)"
			sed 's/^/      /' "$t/stack" 2>/dev/null | head -12
		done
	done
	echo "time_limit: real-time threads on the machine:"
	ps -eLo pid=,tid=,cls=,rtprio=,stat=,pcpu=,comm= | awk '$3 == "FF" || $3 == "RR"' |
		grep -v -E 'migration|watchdog|irq/|ksoftirqd|rcu' | sed 's/^/  /'
} >&2
echo "Bail out! timed out after ${limit}s (see the log for what was running)"
kill -TERM -- -"$pid" $(in_session) 2>/dev/null
sleep 5
kill -KILL -- -"$pid" $(in_session) 2>/dev/null
wait "$pid" 2>/dev/null
exit 124
