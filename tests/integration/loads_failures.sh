#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Loads under bad conditions: a command that exits at once is restarted and
# counted; the disk load on a full filesystem keeps the run alive and
# reports ENOSPC; Ctrl-C and SIGKILL leave no process behind, and files a
# killed run left are removed by the next one; bad specs exit 2.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema
"$RTSOAK" loads | grep -q "^exec:" || skip_all "the exec load is not registered"

plan 16
cd "$WORK" || exit 1
mkdir wd

# --- exec that exits at once: restarted with back-off, exits recorded
rtsoak_tagged run --duration 3s --cpus 0 --loads 'exec:cmd=exit 3' --workdir wd -q -o ex.json 2>err
ok $? "exec exiting at once: the run completes ($(head -c 200 err))"
validate ex.json
ok $? "exec: report is schema-valid"
[ "$(jget ex.json 'r["loads"][0]["restarts"] >= 3 and r["loads"][0]["exits"][-1]["status"] == "exit 3"')" = true ]
ok $? "exec: restarts counted and exit status recorded ($(jget ex.json '(r["loads"][0]["restarts"], r["loads"][0]["exits"][-1:])'))"

# --- disk on a full filesystem
if "$RTSOAK" loads | grep -q "^disk:" && mkdir full && mount -t tmpfs -o size=1m tmpfs full; then
	rtsoak_tagged run --duration 3s --cpus 0 --loads disk:size=8M --workdir full -q -o full.json 2>err
	rc=$?
	umount full
	ok $rc "disk on a full filesystem: the run completes ($(head -c 200 err))"
	[ "$(jget full.json '(r["loads"][0]["errors"] > 0, r["loads"][0]["last_error"])')" = '[true, "No space left on device"]' ]
	ok $? "disk: ENOSPC counted and reported ($(jget full.json '(r["loads"][0]["errors"], r["loads"][0]["last_error"], r["loads"][0]["status"])'))"
	[ "$(jget full.json 'r["run"]["status"]')" = complete ]
	ok $? "disk: status complete despite I/O errors"
else
	for i in 1 2 3; do ok 0 "# SKIP disk load or tmpfs mount unavailable"; done
fi

# --- SIGINT mid-run: report written, no child left, workdir empty
$TAGGED "$RTSOAK" run --duration 30s --cpus 0 --loads cpu,exec:cmd="sleep 100" --workdir wd -q -o int.json &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
ok $? "SIGINT with loads: exits 0"
[ "$(jget int.json 'r["run"]["status"]')" = interrupted ]
ok $? "SIGINT with loads: report says interrupted"
left=$(tagged_pids)
[ -z "$left" ]
ok $? "SIGINT with loads: no process of the run left ($left)"

# --- SIGKILL of rtsoak: children die with it; leftovers cleaned next time.
# Within 10 whole one-sample runs (each starts and stops a load): not an
# absolute time, which a loaded machine or a sanitizer build stretches.
ref=$(ref_run_ms)
$TAGGED "$RTSOAK" run --duration 30s --cpus 0 --loads cpu,exec:cmd="sleep 100" --workdir wd -q -o kill.json &
pid=$!
sleep 1.5
kill -KILL $pid
wait $pid 2>/dev/null
t=$(now_ms)
while [ -n "$(tagged_pids)" ] && [ $(($(now_ms) - t)) -lt $((10 * ref)) ]; do
	sleep 0.05
done
el=$(($(now_ms) - t))
left=$(tagged_pids)
[ "$ref" -gt 0 ] && [ -z "$left" ]
ok $? "SIGKILL of rtsoak: every load process dies with it (${el} ms; within 10 one-sample runs of $ref ms) ($left)"
# A killed run's file (pid 999999 cannot be running: above pid_max's default)
touch wd/rtsoak-load-999999-0-w0.dat wd/unrelated.txt
rtsoak_tagged run --duration 1s --cpus 0 --loads cpu --workdir wd -q -o next.json 2>err
ok $? "next run exits 0"
grep -q "removed 1 file" err
ok $? "next run says it removed the leftover ($(cat err))"
[ "$(ls wd)" = unrelated.txt ]
ok $? "only the leftover was removed, the user's file kept"
rm -f wd/unrelated.txt

# --- bad specs and workdir: exit 2 before anything starts
wrong=
for bad in "nosuch" "cpu:load=0" "cpu:load=101" "cpu:kind=quantum" "cpu:bogus=1" "cpu:load"; do
	err=$("$RTSOAK" run --duration 1s --loads "$bad" -q -o bad.json 2>&1)
	rc=$?
	if [ $rc -ne 2 ] || [ "$(echo "$err" | grep -c .)" -ne 1 ] || [ -e bad.json ]; then
		wrong="$wrong [$bad: rc $rc: $err]"
	fi
done
[ -z "$wrong" ]
ok $? "bad load specs exit 2 with one line and no report$wrong"
err=$("$RTSOAK" run --duration 1s --loads cpu --workdir /nonexistent-rtsoak -q -o bad.json 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q -- "--workdir"
ok $? "missing workdir: exit 2 naming --workdir ($err)"
err=$("$RTSOAK" run --duration 1s --loads cpu:kind=quantum -q -o bad.json 2>&1)
echo "$err" | grep -q "int, float, memory"
ok $? "a bad choice lists the valid ones ($err)"
done_testing
