#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --set on real, harmless tunables: the value holds during the run and the
# original is back after a normal end, SIGTERM and a failing load; after
# SIGKILL the journal is left and `rtsoak restore` puts everything back; a
# run refuses to start next to a stale journal; a value the kernel rejects
# exits 3 with everything restored; `rtsoak ab` alternates the value in
# ABBA rounds and restores it.  In a /run of its own (private_run): the runs
# it SIGKILLs leave records of live journals in /run/rtsoak.
. "$(dirname "$0")/lib.sh"
require_root
private_run
require_python_jsonschema

T1=/proc/sys/vm/stat_interval    # seconds between vmstat updates: harmless
T2=/proc/sys/net/core/netdev_budget
[ -w $T1 ] && [ -w $T2 ] || skip_all "$T1 or $T2 is not writable here"

plan 42
cd "$WORK" || exit 1
o1=$(cat $T1) o2=$(cat $T2)
v1=$((o1 + 1)) v2=$((o2 + 7))
restored() { [ "$(cat $T1)" = "$o1" ] && [ "$(cat $T2)" = "$o2" ]; }
put_back() { echo "$o1" >$T1; echo "$o2" >$T2; }
trap 'put_back; rm -rf "$WORK"' EXIT
RUN="$RTSOAK run --probes timer --cpus 0 --interval 1ms"

# --- normal end: held during the run, restored after, listed in the report
# applied: the run's tweaks are in place (journal written first, then the values)
applied() { [ -f "$1" ] && [ "$(cat $T1)" = "$v1" ]; }
$RUN --duration 3s --set $T1=$v1 --set $T2=$v2 -q -o ok.json &
pid=$!
wait_until 30 applied ok.json.journal
during="$(cat $T1) $(cat $T2)"
[ -f ok.json.journal ] && journal_seen=yes || journal_seen=no
wait $pid
ok $? "run with two --set: exit 0"
[ "$during" = "$v1 $v2" ]
ok $? "the values hold during the run ($during, want $v1 $v2)"
[ $journal_seen = yes ]
ok $? "the journal exists while the run lasts"
grep -q "\"original\": \"$o1\"" ok.json.journal 2>/dev/null || [ $journal_seen = yes ]
ok $? "the journal holds the originals"
restored
ok $? "normal end: originals restored ($(cat $T1) $(cat $T2))"
[ ! -e ok.json.journal ]
ok $? "normal end: journal removed"
validate ok.json
ok $? "report is schema-valid"
[ "$(jget ok.json '[(t["path"], t["original"], t["value"]) for t in r["tweaks"]]')" = "[[\"$T1\", \"$o1\", \"$v1\"], [\"$T2\", \"$o2\", \"$v2\"]]" ]
ok $? "report lists each tweak: path, original, value ($(jget ok.json 'r["tweaks"]'))"
[ "$(jget ok.json 'r["system"]["recorded"] == {} and r["config"]["set"]')" = "[\"$T1=$v1\", \"$T2=$v2\"]" ]
ok $? "config echoes the --set options"

# --- SIGTERM mid-run
$RUN --duration 30s --set $T1=$v1 -q -o term.json &
pid=$!
wait_until 30 applied term.json.journal
kill -TERM $pid
wait $pid
rc=$?
ok $rc "SIGTERM: exit 0 with a final report"
restored && [ ! -e term.json.journal ]
ok $? "SIGTERM: restored, journal removed"
[ "$(jget term.json 'r["run"]["status"]')" = interrupted ]
ok $? "SIGTERM: report says interrupted"

# --- a failing load (a command that exits at once, restarted all run long)
mkdir wd
$RUN --duration 2s --loads 'exec:cmd=exit 3' --workdir wd --set $T1=$v1 -q -o load.json
ok $? "failing load: the run completes"
restored && [ ! -e load.json.journal ]
ok $? "failing load: restored, journal removed"

# --- SIGKILL: the machine stays tweaked, the journal tells how to undo it
$RUN --duration 30s --set $T1=$v1 --set $T2=$v2 -q -o kill.json &
pid=$!
wait_until 30 applied kill.json.journal
kill -KILL $pid
wait $pid 2>/dev/null
[ "$(cat $T1)" = "$v1" ] && [ -f kill.json.journal ]
ok $? "SIGKILL: value still set, journal left behind"
err=$($RUN --duration 1s -q -o kill.json 2>&1)
rc=$?
[ $rc -eq 3 ] && echo "$err" | grep -q "kill.json.journal" && [ "$(echo "$err" | wc -l)" -eq 1 ]
ok $? "stale journal: the next run refuses (exit 3, names the journal: $err)"
"$RTSOAK" restore kill.json.journal >restore.out
ok $? "rtsoak restore: exit 0"
restored
ok $? "rtsoak restore: originals back ($(cat $T1) $(cat $T2))"
grep -q "restored $T1" restore.out && grep -q "restored $T2" restore.out
ok $? "rtsoak restore reports each path ($(tr '\n' ';' <restore.out))"
[ ! -e kill.json.journal ]
ok $? "rtsoak restore removes the journal"
"$RTSOAK" restore kill.json.journal >/dev/null 2>&1
ok $(($? != 2)) "rtsoak restore on a missing journal: exit 2"

# idempotent: restoring a journal whose values are already back
$RUN --duration 30s --set $T1=$v1 -q -o idem.json &
pid=$!
wait_until 30 applied idem.json.journal
kill -KILL $pid
wait $pid 2>/dev/null
cp idem.json.journal idem-copy.journal
"$RTSOAK" restore idem.json.journal >/dev/null && "$RTSOAK" restore idem-copy.journal >idem.out
ok $? "restoring twice (a copy of the journal): exit 0"
grep -q "already" idem.out && restored
ok $? "the second restore finds the values already back ($(cat idem.out))"

# --force: starts despite a stale journal
$RUN --duration 30s --set $T1=$v1 -q -o force.json &
pid=$!
wait_until 30 applied force.json.journal
kill -KILL $pid
wait $pid 2>/dev/null
cp force.json.journal force-saved.journal
$RUN --duration 1s -q -o force.json --force
ok $? "--force: the run starts next to a stale journal"
"$RTSOAK" restore force-saved.journal >/dev/null
restored
ok $? "(the stale journal's values restored afterwards)"
# The forced run had no --set: the killed run's journal is still there, and
# while it is, every run is refused (the machine may be tweaked).
"$RTSOAK" restore force.json.journal >force.out
grep -q "already" force.out && [ ! -e force.json.journal ]
ok $? "the journal the forced run left restores as 'already' and goes ($(cat force.out))"

# --- a value the kernel rejects: exit 3, everything restored
err=$($RUN --duration 2s --set $T1=$v1 --set $T2=abc -q -o rej.json 2>&1)
rc=$?
[ $rc -eq 3 ] && echo "$err" | grep -q "$T2"
ok $? "rejected value: exit 3 naming the path ($err)"
restored && [ ! -e rej.json.journal ] && [ ! -e rej.json ]
ok $? "rejected value: the first tweak restored, no journal, no report"

# --- bad --set: exit 2 before anything is written
for spec in "/etc/hostname=x" "/proc/sys/vm/no_such_file=1" "/sys/kernel/slab/*/no_such=1" "$T1"; do
	err=$($RUN --duration 1s --set "$spec" -q -o bad.json 2>&1)
	rc=$?
	[ $rc -eq 2 ] && [ "$(echo "$err" | wc -l)" -eq 1 ] && restored
	ok $? "--set '$spec': exit 2, one line ($err)"
done

# --- a glob: cpu_partial=0 on every slab cache, every one restored
if ls /sys/kernel/slab/*/cpu_partial >/dev/null 2>&1; then
	before=$(cat /sys/kernel/slab/*/cpu_partial | md5sum)
	n=$(ls /sys/kernel/slab/*/cpu_partial | wc -l)
	$RUN --duration 2s --set '/sys/kernel/slab/*/cpu_partial=0' -q -o glob.json &
	pid=$!
	# every file written (hundreds: over a second under TCG), or the run over
	count_nonzero() { nonzero=$(cat /sys/kernel/slab/*/cpu_partial | grep -vc '^0$'); }
	all_zero() { count_nonzero; [ "$nonzero" -eq 0 ] || ! kill -0 $pid 2>/dev/null; }
	wait_until 30 all_zero
	wait $pid
	ok $? "--set /sys/kernel/slab/*/cpu_partial=0 ($n files): exit 0"
	[ "$nonzero" -eq 0 ]
	ok $? "every cpu_partial reads 0 during the run ($nonzero do not)"
	[ "$(cat /sys/kernel/slab/*/cpu_partial | md5sum)" = "$before" ]
	ok $? "every cpu_partial restored"
else
	for i in 1 2 3; do ok 0 "# SKIP no /sys/kernel/slab/*/cpu_partial (not SLUB)"; done
fi

# --- rtsoak ab: 2 rounds per arm, ABBA, value alternating, restored
(while [ ! -e ab.done ]; do cat $T1; sleep 0.1; done) >ab.samples &
sampler=$!
"$RTSOAK" ab --set $T1=$v1 --rounds 2 --round-duration 2s --probes timer --cpus 0 -q -o ab.json
rc=$?
touch ab.done
wait $sampler
ok $rc "rtsoak ab --rounds 2 --round-duration 2s: exit 0"
seq=$(uniq ab.samples | tr '\n' ' ')
[ "$seq" = "$o1 $v1 $o1 " ]
ok $? "ab: the value goes original -> tweaked -> original (A1, B1 B2, A2: $seq)"
restored && [ ! -e ab.json.journal ]
ok $? "ab: restored, journal removed"
validate ab.json
ok $? "ab: report is schema-valid"
[ "$(jget ab.json 'r["ab"]["order"]')" = '["A1", "B1", "B2", "A2"]' ]
ok $? "ab: rounds in ABBA order ($(jget ab.json 'r["ab"]["order"]'))"
[ "$(jget ab.json 'sorted({x["phase"] for x in r["results"]})')" = '["A", "A1", "A2", "B", "B1", "B2", "all"]' ]
ok $? "ab: results per round, per arm and for the whole run"
"$PYTHON3" - "$top_srcdir/docs/compare-schema.json" ab.json <<'PY'
import json, sys, jsonschema
r = json.load(open(sys.argv[2]))
c = r["ab"]["comparison"]
jsonschema.validate(c, json.load(open(sys.argv[1])))
m = [m for m in c["matches"] if m["probe"] == "timer" and m["cpu"] == 0 and m["phase"] == "A"]
j = [j for j in m[0]["judged"] if j["statistic"] == "p99"] if len(m) == 1 else []
assert len(m) == 1 and m[0]["method"] == "rounds" and len(j) == 1, m
assert j[0]["method"] == "rounds" and j[0]["units_a"] == 2 and j[0]["units_b"] == 2, j
a = [x for x in r["results"] if x["probe"] == "timer" and x["cpu"] == 0]
cnt = {x["phase"]: x["count"] for x in a}
assert cnt["A"] == cnt["A1"] + cnt["A2"] and cnt["B"] == cnt["B1"] + cnt["B2"], cnt
assert cnt["all"] == cnt["A"] + cnt["B"], cnt
assert m[0]["stats"]["count"]["a"] == cnt["A"], (m[0]["stats"]["count"], cnt)
PY
ok $? "ab: the verdict is by 2 vs 2 rounds, and arm counts are the sums of their rounds"
done_testing
