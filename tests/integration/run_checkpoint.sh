#!/bin/bash
# Crash-safe checkpoints: with --checkpoint the report on disk is always a
# schema-valid report of everything measured so far (status "running"), so
# a SIGKILL loses at most one interval; SIGUSR1 forces a checkpoint; the
# final report replaces the checkpoint.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema

plan 15
cd "$WORK" || exit 1

# --- SIGKILL after ~3 checkpoints
$TAGGED "$RTSOAK" run --checkpoint 1s --duration 60s --loads cpu:load=20 -q -o kill.json 2>/dev/null &
pid=$!
sleep 3.5
kill -KILL $pid
wait $pid 2>/dev/null
[ -s kill.json ]
ok $? "a report is on disk after SIGKILL"
validate kill.json
ok $? "the checkpoint is schema-valid"
[ "$(jget kill.json '(r["run"]["status"], 2e9 <= r["run"]["duration_ns"] <= 4e9)')" = '["running", true]' ]
ok $? "it says running and covers ~3 s ($(jget kill.json 'r["run"]["duration_ns"]'))"
[ "$(jget kill.json 'all(x["count"] > 1000 for x in r["results"]) and r["loads"][0]["ops"] > 0')" = true ]
ok $? "it holds the samples and load counters measured so far"
"$RTSOAK" report kill.json | head -1 | grep -q "running.*partial report"
ok $? "rtsoak report reads it and says it is partial"
[ -z "$(ls -A . | grep '^\.rtsoak-')" ]
ok $? "no temp file left beside it"
for _ in $(seq 30); do [ -z "$(tagged_pids)" ] && break; sleep 0.1; done
[ -z "$(tagged_pids)" ]
ok $? "the loads died with the killed run"

# --- SIGUSR1 with periodic checkpoints off
"$RTSOAK" run --checkpoint 0 --duration 60s -q -o usr1.json &
pid=$!
sleep 1.5
[ ! -e usr1.json ]
ok $? "--checkpoint 0: nothing written before the end"
kill -USR1 $pid
sleep 0.5
[ "$(jget usr1.json 'r["run"]["status"]' 2>/dev/null)" = running ]
ok $? "SIGUSR1 writes a checkpoint now"
kill -INT $pid
wait $pid
ok $? "the run goes on after SIGUSR1 and ends on SIGINT"
[ "$(jget usr1.json '(r["run"]["status"], r["run"]["duration_ns"] > 1.9e9)')" = '["interrupted", true]' ]
ok $? "the final report replaces the checkpoint"

# --- disk full while checkpointing: keep measuring, keep the last good
# checkpoint, retry, and say so in the final report
mkdir full
if mount -t tmpfs -o size=2m tmpfs full; then
	"$RTSOAK" run --checkpoint 1s --duration 6s -q -o full/r.json 2>full.err &
	pid=$!
	sleep 1.5
	dd if=/dev/zero of=full/filler bs=64k 2>/dev/null # fill what is left
	sleep 2.2
	validate full/r.json && [ "$(jget full/r.json '(r["run"]["status"], r["run"]["duration_ns"] < 2e9)')" = '["running", true]' ]
	ok $? "disk full: the last good checkpoint stays intact ($(head -c 200 full.err))"
	rm -f full/filler # space again: the next checkpoint and the end succeed
	wait $pid
	ok $? "disk full: the run keeps measuring and exits 0"
	[ "$(jget full/r.json '(r["run"]["status"], any("checkpoint(s) could not be written (last: No space left on device)" in w for w in r["run"]["warnings"]))')" = '["complete", true]' ]
	ok $? "disk full: the final report is complete and counts the failed checkpoints"
	[ -z "$(ls -A full | grep -v '^r.json$')" ]
	ok $? "disk full: no temp file left behind"
	umount full
else
	for i in 1 2 3 4; do ok 0 "# SKIP cannot mount a tmpfs"; done
fi
done_testing
