#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The suite's time limit (tests/time_limit.sh): a test that finishes keeps
# its output and exit status; a test that hangs is bailed out of after the
# limit, with what its processes were doing on stderr, and nothing it
# started -- a real rtsoak run included -- is left running.
. "$(dirname "$0")/lib.sh"
require_root

limit=$top_srcdir/tests/time_limit.sh
plan 7
cd "$WORK" || exit 1

cat >quick.sh <<'EOF'
#!/bin/bash
echo "1..1"
echo "ok 1 - quick"
exit 3
EOF
cat >hang.sh <<EOF
#!/bin/bash
echo "1..2"
echo "ok 1 - before the hang"
"$RTSOAK" run --probes timer --cpus 0 -q -o "$WORK/hang.json" &
sleep 1000
EOF
chmod +x quick.sh hang.sh

RTSOAK_TEST_TIMEOUT=60 bash "$limit" ./quick.sh >quick.out 2>quick.err
rc=$?
[ $rc -eq 3 ] && [ "$(cat quick.out)" = "$(printf '1..1\nok 1 - quick')" ] && [ ! -s quick.err ]
ok $? "a test within the limit: its output and exit status (rc $rc) pass through, nothing added"

start=$(date +%s)
RTSOAK_TEST_TIMEOUT=4 bash "$limit" ./hang.sh >hang.out 2>hang.err
rc=$?
took=$(($(date +%s) - start))
[ $rc -eq 124 ] && [ $took -lt 60 ]
ok $? "a hanging test is ended after the limit: exit 124 after ${took}s"
grep -q '^ok 1 - before the hang$' hang.out && tail -1 hang.out | grep -q '^Bail out! timed out after 4s'
ok $? "its TAP output so far is kept, then 'Bail out!' ($(tail -1 hang.out))"
grep -q 'hang.sh still running after 4s' hang.err && grep -q 'sleep 1000' hang.err
ok $? "stderr names the test and lists its processes"
grep -q 'thread .* rtsoak/tim/0: state ., wchan' hang.err
ok $? "each thread of the rtsoak run is shown with its state and wait channel"
grep -A50 'real-time threads on the machine' hang.err | grep -q 'FF *95 .*rtsoak/tim/0'
ok $? "the machine's real-time threads are listed (the probe at SCHED_FIFO 95)"
left=
for _ in $(seq 50); do
	left=$(pgrep -f "sleep 1000|$WORK/hang.json")
	[ -z "$left" ] && break
	sleep 0.1
done
[ -z "$left" ]
ok $? "nothing the test started is left running (left: ${left:-none})"
done_testing
