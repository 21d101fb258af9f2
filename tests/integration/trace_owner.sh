#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run --trace touches only its own tracefs instances (issue 28):
#  - instances named like rtsoak's but not made by a run (no owner record in
#    /run/rtsoak) are left alone, whatever pid their name holds;
#  - a second traced run in a PID namespace (where the first run's pid does
#    not exist) leaves the first run's instance on, and the first run
#    attributes its spikes as usual;
#  - a live run whose instance someone changes (tracing_on to 0, or a
#    filter added to one of its events) says so in its summary and its
#    report's warnings;
#  - a SIGKILLed run's instance (and owner record) is removed by the next
#    run, also when the killed run was pid 1 of a PID namespace;
#  - without a writable /run for the record, --trace exits 3 before measuring;
#  - in a time namespace (CLOCK_MONOTONIC shifted by 1000 s) the trace
#    timestamps are put on the probes' clock: spikes are attributed.
# Runs with a private /run (private_run) in a private mount namespace;
# instances are the kernel's, shared with every test: only the ones this
# test made or saw appear are touched.
. "$(dirname "$0")/lib.sh"
require_root
grep -qw tracefs /proc/filesystems || skip_all "this kernel has no tracefs"
command -v unshare >/dev/null || skip_all "needs unshare(1)"
err=$("$RTSOAK" run --trace --duration 1s -q -o /dev/null 2>&1 >/dev/null)
case "$err" in *"built without tracefs"*) skip_all "rtsoak was built without tracefs support" ;; esac
[ "$(ncpus)" -ge 2 ] || skip_all "needs 2 CPUs (a measured one and a housekeeping one)"
private_run "$@"
T=/sys/kernel/tracing
[ "$(stat -f -c %T $T)" = tracefs ] || mount -t tracefs nodev $T || exit 1
plan 21
cd "$WORK" || exit 1
# Instances this test made or saw appear, removed at the end.
made=()
cleanup() {
	for d in "${made[@]}"; do
		echo 0 >"$T/instances/$d/tracing_on" 2>/dev/null
		rmdir "$T/instances/$d" 2>/dev/null
	done
	rm -rf "$WORK"
}
trap cleanup EXIT
insts() { ls "$T/instances" | grep '^rtsoak-' | sort; }
# new_inst BEFORE PID: the instance of rtsoak PID (its pid as it sees it)
# that is not in the list BEFORE (by pid: a traced test beside this one
# makes instances of its own meanwhile)
new_inst() { insts | comm -13 "$1" - | grep -E "^rtsoak-$2-[0-9a-f]{16}\$" | head -1; }
has_new() { [ -n "$(new_inst "$1" "$2")" ]; }
# spikes/attributed of the timer probe on CPU 1, phase all
attrib() {
	jget "$1" '[(a["spikes"], a["attributed"]) for a in r["attribution"]["series"]
		if a["probe"] == "timer" and a["cpu"] == 1 and a["phase"] == "all"][0]'
}
# the spike load on CPU 1: 20 ms bursts above the probes, each a spike
# (10 ms threshold) that the trace explains
SPIKE=(--probes timer --cpus 1 --interval 100us --loads spike:period=400ms:burst=20ms:cpus=1
	--spike-threshold 10ms)

# --- names alone are not ours ----------------------------------------------
dead=$(bash -c 'echo $$')
while kill -0 "$dead" 2>/dev/null; do dead=$((dead + 1)); done
fake=(rtsoak-999999999 "rtsoak-$dead" "rtsoak-$dead-0123456789abcdef")
for d in "${fake[@]}"; do mkdir "$T/instances/$d" && made+=("$d"); done
"$RTSOAK" run --trace --probes timer --cpus 1 --duration 1s -q -o names.json 2>names.err
ok $? "a --trace run exits 0 ($(head -c 200 names.err))"
for d in "${fake[@]}"; do
	[ -d "$T/instances/$d" ] && [ "$(cat "$T/instances/$d/tracing_on")" = 1 ]
	ok $? "instances/$d (no owner record: not made by rtsoak) is left alone, tracing on"
done

# --- a run in a PID namespace leaves a live run's instance alone -----------
insts >before.a
"$RTSOAK" run --trace "${SPIKE[@]}" --duration 6s -q -o a.json 2>a.err &
apid=$!
wait_until 5 has_new before.a $apid
ainst=$(new_inst before.a $apid)
[ -n "$ainst" ] && made+=("$ainst")
sleep 1
unshare --pid --fork --mount-proc "$RTSOAK" run --trace --probes timer --cpus 1 --duration 1s \
	-q -o b.json 2>b.err
brc=$?
aon=$(cat "$T/instances/$ainst/tracing_on" 2>&1)
ok $brc "a traced run in a PID namespace exits 0 meanwhile ($(head -c 200 b.err))"
[ "$aon" = 1 ]
ok $? "the live run's instance $ainst is still tracing after it (tracing_on=$aon)"
wait $apid
ok $? "the live run exits 0 ($(head -c 200 a.err))"
read -r spikes attributed <<<"$(attrib a.json | tr -d '[],')"
[ "${spikes:-0}" -ge 8 ] && [ $((attributed * 10)) -ge $((spikes * 9)) ] &&
	! grep -q -- '--trace:' <<<"$(jget a.json 'r["run"]["warnings"]')"
ok $? "and attributes its spikes with no warning about its instance (${attributed:-?} of ${spikes:-?})"

# --- a disturbed instance is a warning ---------------------------------------
# disturbed NAME FILE VALUE: a 4 s traced run (NAME.json, NAME.out, NAME.err)
# whose instance's FILE gets VALUE 2 s in; its exit status, its instance in
# $inst.
disturbed() {
	insts >"before.$1"
	"$RTSOAK" run --trace --probes timer --cpus 1 --duration 4s -o "$1.json" >"$1.out" 2>"$1.err" &
	local pid=$!
	wait_until 5 has_new "before.$1" $pid
	inst=$(new_inst "before.$1" $pid)
	[ -n "$inst" ] && made+=("$inst")
	sleep 2
	echo "$3" >"$T/instances/$inst/$2"
	wait $pid
}
disturbed c tracing_on 0
ok $? "a run whose instance was switched off mid-run exits 0 ($(head -c 200 c.err))"
w=$(jget c.json '[w for w in r["run"]["warnings"] if w.startswith("--trace:")]')
[[ "$w" == *"tracing_on of its instance $inst was set to 0"* ]]
ok $? "its report's warnings say so ($w)"
grep -q "tracing_on of its instance $inst was set to 0" c.out c.err
ok $? "and so does its summary ($(grep -h -- '--trace:' c.out c.err | head -c 200))"
validate c.json
ok $? "its report is schema-valid"

# A filter added to an event the run left unfiltered drops that event as
# surely as tracing_on 0 drops them all: the run says so too.
disturbed f events/irq/softirq_entry/filter "vec == 99"
w=$(jget f.json '[w for w in r["run"]["warnings"] if w.startswith("--trace:")]')
[[ "$w" == *"the filter of irq:softirq_entry in its instance $inst was changed to 'vec == 99'"* ]]
ok $? "a filter added mid-run: the report's warnings say so ($w)"
grep -q "the filter of irq:softirq_entry in its instance $inst was changed" f.out f.err &&
	validate f.json
ok $? "and so does its summary, and the report is schema-valid ($(grep -h -- '--trace:' f.out f.err | head -c 200))"

# --- a killed run's instance is removed by the next run ---------------------
insts >before.k
"$RTSOAK" run --trace --probes timer --cpus 1 --duration 60s -q -o k.json 2>/dev/null &
kpid=$!
wait_until 5 has_new before.k $kpid
kinst=$(new_inst before.k $kpid)
[ -n "$kinst" ] && made+=("$kinst")
insts >before.n
unshare --pid --fork --mount-proc "$RTSOAK" run --trace --probes timer --cpus 1 \
	--duration 60s -q -o n.json 2>/dev/null &
npid=$!
wait_until 5 has_new before.n 1
ninst=$(new_inst before.n 1)
[ -n "$ninst" ] && made+=("$ninst")
sleep 1
kill -KILL $kpid
# the namespace's pid 1, rtsoak (unshare's child); the namespace dies with it
kill -KILL $(cat /proc/$npid/task/$npid/children)
wait $kpid $npid 2>/dev/null
[ -d "$T/instances/$kinst" ] && [ -d "$T/instances/$ninst" ] && [[ "$ninst" == rtsoak-1-* ]]
ok $? "SIGKILL leaves the instances of a run and of a PID namespace's run behind ($kinst $ninst)"
"$RTSOAK" run --trace --probes timer --cpus 1 --duration 1s -q -o next.json 2>next.err
ok $? "the next --trace run exits 0 ($(head -c 200 next.err))"
[ ! -e "$T/instances/$kinst" ] && [ ! -e "$T/instances/$ninst" ] &&
	[ -z "$(ls /run/rtsoak | grep -e "$kinst" -e "$ninst")" ]
ok $? "it removed both, and their owner records ($(ls $T/instances | grep -e "$kinst" -e "$ninst"; ls /run/rtsoak | grep trace-))"

# --- no run directory for the owner record: refused before measuring ------
insts >before.r
# (unshare without --fork and sh's exec: the run's pid is $!)
unshare -m --propagation private sh -c "mount -t tmpfs -o ro tmpfs /run &&
	exec \"$RTSOAK\" run --trace --probes timer --cpus 1 --duration 1s -q -o r.json" 2>r.err &
rpid=$!
wait $rpid
rc=$?
[ $rc -eq 3 ] && [ "$(grep -c . r.err)" -eq 1 ] && grep -q "cannot record the owner" r.err &&
	[ ! -e r.json ]
ok $? "no writable /run: --trace exits 3 with one line (rc $rc: $(head -c 240 r.err))"
[ -z "$(new_inst before.r $rpid)" ]
ok $? "and makes no instance"

# --- a time namespace ---------------------------------------------------------
if [ -r /proc/self/timens_offsets ] && unshare --time --monotonic 1000 --fork true 2>/dev/null; then
	unshare --time --monotonic 1000 --fork "$RTSOAK" run --trace "${SPIKE[@]}" --duration 4s -q \
		-o t.json 2>t.err
	ok $? "a --trace run in a time namespace (monotonic +1000 s) exits 0 ($(head -c 200 t.err))"
	read -r spikes attributed <<<"$(attrib t.json | tr -d '[],')"
	[ "${spikes:-0}" -ge 5 ] && [ $((attributed * 10)) -ge $((spikes * 9)) ]
	ok $? "and attributes its spikes (${attributed:-?} of ${spikes:-?})"
else
	skip "no time namespaces here"
	skip "no time namespaces here"
fi
done_testing
