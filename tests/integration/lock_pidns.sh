#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The locks of /run/rtsoak seen from a PID namespace (issue 28): a lock
# held by a process outside the namespace reads back (F_GETLK) with pid 0;
# that is a live holder, not nobody.  A run with --set is live on the host:
# a run started in a PID namespace meanwhile must not take its journal
# record for a killed run's ("the machine is still tweaked by a killed
# run") and refuse to start, nor take its report's lock.
# Private /run (private_run): the journal record is this test's alone.
. "$(dirname "$0")/lib.sh"
require_root
private_run "$@"
command -v unshare >/dev/null || skip_all "needs unshare(1)"
unshare --pid --fork --mount-proc true 2>/dev/null || skip_all "no PID namespaces here"
[ "$(ncpus)" -ge 2 ] || skip_all "needs 2 CPUs"
plan 4
cd "$WORK" || exit 1
T1=/proc/sys/vm/stat_interval # seconds between vmstat updates: harmless
v0=$(cat $T1)
"$RTSOAK" run --probes timer --cpus 1 --duration 5s --set "$T1=$((v0 + 1))" -q -o a.json \
	2>a.err &
apid=$!
wait_until 4 test -e a.json.journal
"$RTSOAK" run --probes timer --cpus 1 --duration 5s -q -o b.json 2>/dev/null &
bpid=$!
sleep 1
unshare --pid --fork --mount-proc "$RTSOAK" run --probes timer --cpus 1 --duration 1s -q \
	-o c.json 2>c.err
rc=$?
ok $rc "a run in a PID namespace starts while a host run holds a journal ($rc: $(head -c 200 c.err))"
unshare --pid --fork --mount-proc "$RTSOAK" run --probes timer --cpus 1 --duration 1s -q \
	-o b.json 2>d.err
rc=$?
[ $rc -eq 3 ] && grep -q "is the report of rtsoak pid" d.err
ok $? "and one there with the -o of a live host run is refused (exit 3: $rc, $(head -c 200 d.err))"
wait $apid
ok $? "the host run exits 0 ($(head -c 200 a.err))"
wait $bpid
[ "$(cat $T1)" = "$v0" ] && [ ! -e a.json.journal ]
ok $? "the tunable is restored and the journal gone ($(cat $T1), was $v0)"
done_testing
