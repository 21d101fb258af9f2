#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The tracefs flight recorder (src/trace/) on the real tracefs, through
# tests/trace_capture: rtsoak's instance is created, configured and removed;
# the top-level buffer's settings are the same before and after; a SIGKILLed
# holder's instance is removed by the next create (its owner record in
# /run/rtsoak is no longer held), while another tool's instance, a live
# process's rtsoak-<pid> and names that only look like ours (no owner
# record, even in the exact rtsoak-<pid>-<token> form) are left alone; tracefs mounted by the recorder is unmounted after and one
# mounted before is left mounted; where /sys/kernel/tracing is not tracefs
# (a tmpfs over it, a symlink owned by someone else) creation fails with one
# line; a SCHED_FIFO thread sleeping 1 ms on a chosen CPU shows in the window
# (its sched_switch, its hrtimer_wakeup expiries).
#
# Everything that mounts runs in a private mount namespace (the test
# re-executes itself under unshare -m); instances are the kernel's, shared
# by every namespace, so the names made here are unique and removed.
. "$(dirname "$0")/lib.sh"
require_root
: "${TRACE_CAPTURE:=$(dirname "$RTSOAK")/tests/trace_capture}"
[ -x "$TRACE_CAPTURE" ] ||
	skip_all "no $TRACE_CAPTURE: rtsoak was built without tracefs (configure --with-tracefs)"
grep -qw tracefs /proc/filesystems || skip_all "this kernel has no tracefs"
command -v unshare >/dev/null || skip_all "needs unshare(1)"
# With a tmpfs of its own on /run, where rtsoak keeps the owner records of
# its instances: the SIGKILLed holder's record below is seen by this test's
# recorders alone, so that no --trace run of another test beside it (the
# suite runs in parallel) removes that instance first (distcheck: "removed
# 0 stale instance(s)", the instance gone), and --cleanup sees no record of
# theirs.
if [ -z "${TRACE_TEST_NS:-}" ]; then
	rm -rf "$WORK"
	TRACE_TEST_NS=1 exec unshare -m --propagation private \
		bash -c 'mount -t tmpfs -o mode=0755 tmpfs /run && exec bash "$0" "$@"' "$0" "$@"
fi

T=/sys/kernel/tracing
CAP=$TRACE_CAPTURE
plan 37
cd "$WORK" || exit 1
fstype() { stat -f -c %T "$1" 2>/dev/null; }
# In this namespace tracefs is mounted (as it is on most machines); the
# cases without it unmount it in a namespace of their own.
[ "$(fstype $T)" = tracefs ] || mount -t tracefs nodev $T || exit 1
cleanup() {
	for d in other rtsoak-0123 rtsoak-12x "rtsoak-$$" rtsoak-99999999999 ${dead:+"rtsoak-$dead"} \
		${dead:+"rtsoak-$dead-00000000deadbeef"}; do
		rmdir "$T/instances/$d" 2>/dev/null
	done
	rm -rf "$WORK"
}
trap cleanup EXIT
raw_top() {
	for f in tracing_on current_tracer buffer_size_kb trace_clock tracing_cpumask set_event; do
		echo "== $f"
		cat "$T/$f"
	done
}
cpu=0
[ "$(ncpus)" -ge 2 ] && cpu=1

# --- created, configured, removed; the top level untouched ---------------
raw_top >top.raw.before
"$CAP" --top >top.before
ok $? "trace_top_snapshot reads the top level ($(tr '\n' ' ' <top.before | cut -c1-80))"
"$CAP" --cpus $cpu --quiet -- sleep 1 >run.out 2>run.err &
pid=$!
# Configured once it has printed its events (a new instance starts with
# tracing on, then off while it is set up).
for _ in $(seq 100); do grep -q "^# events" run.out && break; sleep 0.05; done
name=$(sed -n 's/^# capture instance=\([^ ]*\) .*/\1/p' run.out)
inst=$T/instances/$name
[[ "$name" =~ ^rtsoak-$pid-[0-9a-f]{16}$ ]] && [ -d "$inst" ] && [ -f "/run/rtsoak/trace-$name" ]
ok $? "instance $name (rtsoak-<pid>-<random token>) exists while the recorder runs, with its owner record"
on=$(cat "$inst/tracing_on" 2>/dev/null) clock=$(cat "$inst/trace_clock" 2>/dev/null)
mask=$(cat "$inst/tracing_cpumask" 2>/dev/null) kb=$(cat "$inst/buffer_size_kb" 2>/dev/null)
sw=$(cat "$inst/events/sched/sched_switch/enable" 2>/dev/null)
hr=$(cat "$inst/events/timer/hrtimer_expire_entry/enable" 2>/dev/null)
[ "$on" = 1 ] && [[ "$clock" == *"[mono]"* ]]
ok $? "its tracing is on, trace_clock mono (tracing_on=$on, clock=$clock)"
# The kernel rounds the size up to whole sub-buffers (2048 reads back 2051).
[ $((16#${mask//,/})) -eq $((1 << cpu)) ] && [ "${kb:-0}" -ge 2048 ] && [ "$kb" -lt 2112 ]
ok $? "restricted to CPU $cpu (tracing_cpumask=$mask), 2048 KiB per CPU (buffer_size_kb=$kb)"
[ "$sw" = 1 ] && [ "$hr" = 1 ]
ok $? "sched_switch and hrtimer_expire_entry enabled in the instance ($sw $hr)"
wait $pid
ok $? "the recorder exits 0 ($(head -c 200 run.err))"
[ ! -e "$inst" ] && [ ! -e "/run/rtsoak/trace-$name" ]
ok $? "its instance and its owner record are removed at the end"
grep -q "^# events sched:sched_switch sched:sched_waking sched:sched_wakeup irq:irq_handler_entry" run.out
ok $? "it reports the events it enabled"
"$CAP" --top >top.after
raw_top >top.raw.after
same_bytes top.before top.after && same_bytes top.raw.before top.raw.after
ok $? "top level tracing_on, current_tracer, buffer_size_kb, trace_clock, cpumask, set_event unchanged"
"$CAP" --cpus $cpu --ms 50 --quiet >/dev/null 2>&1
grep -q "mounted=0" run.out && [ "$(fstype $T)" = tracefs ]
ok $? "tracefs mounted before is used and left mounted"

# --- SIGKILL leaves a stale instance; the next create removes it ----------
"$CAP" --cpus $cpu --quiet -- sleep 30 >kill.out 2>&1 &
kpid=$!
for _ in $(seq 50); do grep -q "^# events" kill.out && break; sleep 0.05; done
kname=$(sed -n 's/^# capture instance=\([^ ]*\) .*/\1/p' kill.out)
kinst=$T/instances/$kname
kchild=$(sed -n 's/^# child pid=//p' kill.out)
kill -KILL $kpid
wait $kpid 2>/dev/null
[ -n "$kchild" ] && kill -KILL "$kchild" 2>/dev/null # its sleep, now an orphan
[ -d "$kinst" ]
ok $? "after SIGKILL its instance $kname is left behind (the case to clean up)"
# Names that are not a dead rtsoak's: another tool's, a live process's
# (this shell), a leading zero, a suffix, a pid beyond any pid_max.
dead=$(bash -c 'echo $$')
while kill -0 "$dead" 2>/dev/null; do dead=$((dead + 1)); done
for d in other rtsoak-0123 rtsoak-12x "rtsoak-$$" rtsoak-99999999999; do mkdir "$T/instances/$d"; done
"$CAP" --cpus $cpu --ms 20 --quiet >stale.out 2>stale.err
ok $? "the next recorder starts ($(head -c 200 stale.err))"
[ ! -e "$kinst" ] && [ ! -e "/run/rtsoak/trace-$kname" ]
ok $? "it removed the killed holder's instance and its owner record"
removed=$(sed -n 's/.*stale_removed=\([0-9]*\).*/\1/p' stale.out)
[ "${removed:-0}" -ge 1 ]
ok $? "and says it removed ${removed:-?} stale instance(s)"
for d in other rtsoak-0123 rtsoak-12x "rtsoak-$$" rtsoak-99999999999; do
	[ -d "$T/instances/$d" ]
	ok $? "instances/$d is not touched"
done
# A dead pid, in the old and in the exact pattern, made by hand: not
# rtsoak's (no owner record), so --cleanup leaves both (issue 28: a name
# proves nothing, and in a PID namespace a live run's pid looks dead).
mkdir "$T/instances/rtsoak-$dead" "$T/instances/rtsoak-$dead-00000000deadbeef"
n=$("$CAP" --cleanup)
[ -d "$T/instances/rtsoak-$dead" ] && [ -d "$T/instances/rtsoak-$dead-00000000deadbeef" ] &&
	[ "$n" = 0 ]
ok $? "--cleanup leaves rtsoak-$dead and rtsoak-$dead-<token> (no owner record) alone ($n removed)"

# --- tracefs not mounted: mounted for the run, unmounted after ------------
out=$(unshare -m --propagation private bash -c "
	umount $T || exit 9
	before=\$(stat -f -c %T $T)
	'$CAP' --cpus $cpu --ms 50 --quiet >m.out; rc=\$?; head -1 m.out
	echo \"rc=\$rc before=\$before after=\$(stat -f -c %T $T) mounts=\$(grep -c ' $T ' /proc/self/mountinfo)\"" 2>&1)
[[ "$out" == *"mounted=1"* ]] && [[ "$out" == *"rc=0 before=sysfs after=sysfs mounts=0"* ]]
ok $? "without tracefs mounted the recorder mounts it and unmounts it ($(echo $out | tail -c 80))"

# --- /sys/kernel/tracing unusable: one line, no mount over it -------------
out=$(unshare -m --propagation private bash -c "
	umount $T; mount -t tmpfs -o size=1M tmpfs $T || exit 9
	'$CAP' --cpus $cpu --ms 50 --quiet 2>err >/dev/null
	echo rc=\$?; cat err; echo fs=\$(stat -f -c %T $T)" 2>&1)
rc=$(echo "$out" | sed -n 's/^rc=//p')
msg=$(echo "$out" | sed -n '2,/^fs=/p' | grep -v '^fs=')
[ "$rc" = 3 ] && [ "$(echo "$msg" | grep -c .)" -eq 1 ] && [[ "$msg" == *"is not tracefs"* ]]
ok $? "a tmpfs at $T: exit 3 with one line ($msg)"
[[ "$out" == *"fs=tmpfs"* ]]
ok $? "and nothing is mounted over it"
out=$(unshare -m --propagation private bash -c "
	mount -t tmpfs -o size=1M tmpfs /sys/kernel || exit 9
	mkdir -p /sys/kernel/elsewhere && ln -s /sys/kernel/elsewhere $T && chown -h 65534 $T
	'$CAP' --cpus $cpu --ms 50 --quiet 2>&1 >/dev/null; echo rc=\$?" 2>&1)
[[ "$out" == *"symlink owned by uid 65534"* ]] && [[ "$out" == *"rc=3" ]]
ok $? "a symlink at $T not owned by root is refused ($(echo $out | head -c 160))"

# --- a command it starts inherits no tracefs fd (it would keep the
# instance busy, rmdir EBUSY, for as long as it lives) ---------------------
"$CAP" --cpus $cpu --quiet -- sh -c 'ls -l /proc/self/fd/ | grep -c tracing/ > fds; true' >/dev/null 2>&1
[ "$(cat fds 2>/dev/null)" = 0 ]
ok $? "a child of the recorder holds no tracefs file ($(cat fds 2>/dev/null) open)"

# --- not root: refused before anything is touched ------------------------
if command -v setpriv >/dev/null; then
	setpriv --reuid 65534 --regid 65534 --clear-groups "$CAP" --cpus $cpu --ms 10 --quiet \
		>nr.out 2>nr.err
	rc=$?
	[ $rc -eq 3 ] && [ "$(grep -c . nr.err)" -eq 1 ] && grep -q "needs root" nr.err
	ok $? "as uid 65534: exit 3 with one line ($rc: $(cat nr.err))"
else
	ok 0 "# SKIP no setpriv(1)"
fi

# --- a failing set-up leaves nothing behind --------------------------------
"$CAP" --cpus 4000 --ms 10 --quiet >bad.out 2>bad.err &
bpid=$!
wait $bpid
rc=$?
[ $rc -eq 3 ] && [ "$(grep -c . bad.err)" -eq 1 ] &&
	! ls "$T/instances" /run/rtsoak | grep -q -e "^rtsoak-$bpid-" -e "^trace-rtsoak-$bpid-"
ok $? "a CPU the kernel does not have: exit 3, one line, no instance left ($rc: $(cat bad.err))"

# --- the window keeps window_ms behind the newest event ---------------------
# The trim keeps what is at most 100 ms older than the newest event held
# (on a quiet CPU the newest may be well before the capture's end).
"$CAP" --cpus $cpu --ms 400 --window-ms 100 >trim.out 2>&1
read -r from to oldest covered <<<"$(sed -n 's/^# window from=\([0-9]*\) to=\([0-9]*\) .*oldest=\([0-9]*\).* covered=\([01]\).*/\1 \2 \3 \4/p' trim.out)"
newest=$(grep -v '^#' trim.out | tail -1 | cut -d' ' -f1)
[ "${covered:-1}" = 0 ] && [ "${oldest:-0}" -gt "${from:-0}" ] && [ -n "$newest" ] &&
	[ "$oldest" -ge $((newest - 100000000)) ] && [ "$newest" -le "$to" ]
ok $? "a 400 ms capture with a 100 ms window: not covered from its start, the oldest event held $(( (${newest:-0} - ${oldest:-0}) / 1000000 )) ms before the newest (<= 100)"

# --- a known workload: SCHED_FIFO 50, 1 ms sleeps on CPU $cpu -------------
# A nice 19 spinner keeps the CPU out of idle: this kernel never traces a
# sched_switch out of the idle task, so on an idle CPU the sleeper's
# switch-ins would be missing whatever the recorder does.
taskset -c $cpu nice -n 19 sh -c 'while :; do :; done' &
spin=$!
"$CAP" --cpus $cpu -- chrt -f 50 taskset -c $cpu "$PYTHON3" -c '
import time
for _ in range(100): time.sleep(0.001)' >work.out 2>work.err
rc=$?
kill $spin
wait $spin 2>/dev/null
ok $rc "the recorder ran the workload ($(head -c 200 work.err))"
child=$(sed -n 's/^# child pid=//p' work.out)
nsw=$(awk -v p="$child" '$3 == "switch" && $4 == p && $6 == 49' work.out | wc -l)
[ "$nsw" -ge 50 ] || awk -v p="$child" '$3 == "switch" && $4 == p' work.out | head -3 | sed 's/^/# /'
[ "$nsw" -ge 50 ]
ok $? "its pid $child is switched in at prio 49 (FIFO 50) $nsw times (>= 50 of 100 sleeps)"
nhr=$(awk -v p="$child" '$3 == "hrtimer_entry" && $4 == p && $9 == "hrtimer_wakeup"' work.out | wc -l)
[ "$nhr" -ge 50 ]
ok $? "hrtimer_expire_entry named hrtimer_wakeup waking $child: $nhr times"
awk '!/^#/ && $2 != '$cpu' { bad = 1 } END { exit bad }' work.out
ok $? "every event of the window is of CPU $cpu"
awk '!/^#/ { if ($1 < last) bad = 1; last = $1 } END { exit bad }' work.out
ok $? "the window is sorted by time"
bad=0
while IFS= read -r l; do
	case "$l" in "#"*) continue ;; esac
	set -- $l
	[ $# -eq 10 ] || bad=1
done <work.out
[ $bad -eq 0 ] && [ "$(grep -vc '^#' work.out)" -gt 100 ]
ok $? "every line is in the fixture format ($(grep -vc '^#' work.out) events)"
grep -q "^# window .* lost=0 lost_inside=0 lost_before=0 oldest=[0-9]* covered=1 complete=1" work.out
ok $? "nothing lost at the default buffer size; the window is covered and complete ($(grep "^# window" work.out | cut -d' ' -f5-))"

# --- timestamps are CLOCK_MONOTONIC: each sleep's expiry 1 ms after the
# sleeper read the clock, never before, and before the sleeper read it again
# on waking (between the sleeper's own two readings: no bound in time,
# which a busy machine would stretch; another clock would fall outside) --
"$CAP" --cpus $cpu -- chrt -f 50 taskset -c $cpu "$PYTHON3" -c '
import sys, time
with open(sys.argv[1], "w") as f:
    for _ in range(50):
        t = time.monotonic_ns(); time.sleep(0.001)
        f.write("%d %d\n" % (t, time.monotonic_ns()))' "$WORK/starts" >clock.out 2>&1
child=$(sed -n 's/^# child pid=//p' clock.out)
# (mawk: no asort; sort(1) orders the differences)
awk -v p="$child" 'NR == FNR { s[n + 0] = $1; w[n++] = $2; next }
	$3 == "hrtimer_entry" && $4 == p && $9 == "hrtimer_wakeup" { h[m++] = $1 }
	END { j = 0; for (i = 0; i < n; i++) { while (j < m && h[j] < s[i]) j++; if (j < m) print h[j] - s[i], w[i] - h[j] } }' \
	"$WORK/starts" clock.out | sort -n >delays
n=$(grep -c . delays) lo=$(head -1 delays | cut -d' ' -f1)
late=$(awk '$2 < 0' delays | wc -l)
[ "${n:-0}" -ge 45 ] && [ "${lo:-0}" -ge 1000000 ] && [ "$late" -eq 0 ]
ok $? "sleep 1 ms -> its hrtimer expiry: $n found, shortest ${lo:-?} ns after the sleep (>= 1 ms), $late after the sleeper woke (none)"

# --- an overrun is seen and placed: a tiny buffer read twice a second -----
"$CAP" --cpus $cpu --buffer-kb 8 --poll-ms 500 -- chrt -f 50 taskset -c $cpu "$PYTHON3" -c '
import time
for _ in range(2000): time.sleep(0.0001)' >lost.out 2>lost.err
lost=$(sed -n 's/^# window .* lost=\([0-9]*\) .*/\1/p' lost.out)
[ "${lost:-0}" -gt 0 ] && grep -q "^# window .* lost_inside=1" lost.out &&
	awk '$3 == "lost" && $8 > 0 { f = 1 } END { exit !f }' lost.out
ok $? "8 KiB read every 500 ms overruns: $lost events counted lost, a lost event in the window"
done_testing
