#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Without real-time privileges: exit 3 with a message saying what failed and
# how to fix it, and no report; --no-rt runs anyway as SCHED_OTHER.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema
command -v setpriv >/dev/null || skip_all "setpriv (util-linux) is missing"
id nobody >/dev/null 2>&1 || skip_all "no 'nobody' user to drop privileges to"

plan 7
# The build tree may sit under a directory 'nobody' cannot enter: run a copy.
cp "$RTSOAK" "$WORK/rtsoak"
chmod 755 "$WORK/rtsoak"
mkdir "$WORK/out"
chmod 777 "$WORK/out"
cd "$WORK/out" || exit 1
as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all \
		env HOME=/ "$WORK/rtsoak" "$@"
}

err=$(as_nobody run --duration 1s -o "$WORK/out/r.json" 2>&1 >/dev/null)
rc=$?
ok $((rc != 3)) "unprivileged run exits 3 (got $rc)"
echo "$err" | grep -q "SCHED_FIFO" && echo "$err" | grep -q "RLIMIT_RTPRIO" &&
	echo "$err" | grep -q -- "--no-rt"
ok $? "message names SCHED_FIFO, the fix and --no-rt ($err)"
[ "$(echo "$err" | grep -c .)" -eq 1 ]
ok $? "message is one line"
[ ! -e "$WORK/out/r.json" ]
ok $? "no report written"

as_nobody run --no-rt --duration 1s -q -o "$WORK/out/nort.json" 2>"$WORK/err"
ok $? "--no-rt run exits 0 unprivileged ($(head -c 300 "$WORK/err"))"
validate "$WORK/out/nort.json"
ok $? "--no-rt report is schema-valid"
[ "$(jget "$WORK/out/nort.json" '(r["run"]["realtime"], r["config"]["policy"])')" = '[false, "SCHED_OTHER"]' ]
ok $? "--no-rt report says realtime false, SCHED_OTHER"
done_testing
