#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/lab-trace-cost.sh: what `run --trace` and `--trace-stacks` cost the
# timer probe, in the lab (issue 31).
#
# What it measures
#   In the instruction-timed guest (tests/lab/lab_run.sh, docs/LAB.md: one
#   vCPU, its clock the instruction count, so a figure is the same every
#   time), ROUNDS interleaved rounds of three runs each, without tracing,
#   with --trace and with --trace-stacks (off, trace, stacks, off, trace,
#   ...), every one `rtsoak run --duration DURATION --interval 1ms --probes
#   timer --cpus 0` on an otherwise idle CPU: their p50, p99.9 and max, and
#   for each round the ratio of the traced run to the untraced one.  The
#   table's last lines are the median ratio over the rounds, against the
#   goals of issue 31 (p50 and p99.9: --trace <= 1.10, --trace-stacks
#   <= 1.25; max is shown, not judged).  The --trace runs' events per
#   second and lost events say what the recorder kept.
#   With EVENTS=1, first what each event on the probe's wake-up path costs
#   it: untraced runs (DURATION) beside an instance of the script's own on
#   CPU 0 with one event (or a set) enabled, recorded, dropped by a filter
#   that matches nothing, or soft-disabled (registered, off: the target of
#   an enable_event trigger on an event that never fires); the p50 over the
#   plain run's is the cost (docs/ARCHITECTURE.md, what the recorder leaves
#   out).
#
# Needs what lab_run.sh needs (root, qemu, the guest in build/vm-cache).
# Run from the build directory:
#   sudo bash ../bench/lab-trace-cost.sh
# Settings: RTSOAK (the binary measured, default ./rtsoak: set it to another
# build's to measure that one, e.g. main's for the figures before a change),
# ROUNDS (default 3), DURATION (default 5s), EVENTS (1: the per-event
# costs too), OUT (the lab's job directory, default a new one under /tmp;
# its runs' reports are kept there).
ME=lab-trace-cost
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
find_rtsoak
RTSOAK=$(cd "$(dirname "$RTSOAK")" && pwd)/$(basename "$RTSOAK")
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5s}
OUT=${OUT:-$(mktemp -d /tmp/lab-trace-cost.XXXXXX)} || die "mktemp"
mkdir -p "$OUT" || die "cannot make $OUT"
rm -f "$OUT"/r*-*.json

# In the guest: the rounds, each run's report in /job (the host's $OUT).
cat >"$OUT/trace-cost.sh" <<EOF
#!/bin/bash
[ "\${EVENTS:-0}" = 1 ] && { bash /job/event-cost.sh || exit 1; }
for r in \$(seq $ROUNDS); do
	for m in off trace stacks; do
		a=
		[ \$m = trace ] && a=--trace
		[ \$m = stacks ] && a=--trace-stacks
		rtsoak run --duration $DURATION --interval 1ms --probes timer --cpus 0 \$a -q \\
			-o /job/r\$r-\$m.json 2>/job/r\$r-\$m.err || { cat /job/r\$r-\$m.err; exit 1; }
	done
done
EOF
# EVENTS=1: one untraced run per line beside the script's own instance.
cat >"$OUT/event-cost.sh" <<'EOF'
#!/bin/bash
T=/sys/kernel/tracing
[ "$(stat -f -c %T $T 2>/dev/null)" = tracefs ] || mount -t tracefs nodev $T || exit 1
I=$T/instances/lab-event-cost
F=$I/events
NEVER=irq_vectors/thermal_apic_entry
ROUTINE="sched/sched_switch sched/sched_waking sched/sched_wakeup irq_vectors/local_timer_entry irq_vectors/local_timer_exit timer/hrtimer_expire_entry timer/hrtimer_expire_exit power/cpu_idle"
p50() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print([x for x in r["results"] if x["phase"] == "all"][0]["p50_ns"])' "$1"; }
# one NAME EVENTS HOW: HOW is rec, none (the filter "common_pid == -1",
# true of no event) or soft (enable_event triggers on NEVER, which never
# fires, keep them registered and off)
one() {
	local name=$1 events=$2 how=$3
	if [ -n "$events" ]; then
		mkdir $I && echo 0 >$I/tracing_on && echo 1 >$I/tracing_cpumask && echo mono >$I/trace_clock || exit 1
		[ "$how" = soft ] && echo 1 >$F/$NEVER/enable
		for e in $events; do
			case $how in
			rec) echo 1 >$F/$e/enable ;;
			none) echo 1 >$F/$e/enable && echo "common_pid == -1" >$F/$e/filter ;;
			soft) echo "enable_event:${e%/*}:${e#*/}" >>$F/$NEVER/trigger ;;
			esac || exit 1
		done
		echo 1 >$I/tracing_on
	fi
	rtsoak run --duration DURATION_ --interval 1ms --probes timer --cpus 0 -q -o /job/ev-$name.json || exit 1
	if [ -n "$events" ]; then
		echo 0 >$I/tracing_on
		if [ "$how" = soft ]; then
			for e in $events; do echo "!enable_event:${e%/*}:${e#*/}" >>$F/$NEVER/trigger; done
		fi
		rmdir $I || exit 1
	fi
	echo "$name $(p50 /job/ev-$name.json)" >>/job/event-cost.txt
}
: >/job/event-cost.txt
one untraced "" ""
one enabled_never_fires "$NEVER" rec
one sched_switch "sched/sched_switch" rec
one sched_switch_filtered "sched/sched_switch" none
one local_timer_pair "irq_vectors/local_timer_entry irq_vectors/local_timer_exit" rec
one local_timer_pair_filtered "irq_vectors/local_timer_entry irq_vectors/local_timer_exit" none
one hrtimer_pair "timer/hrtimer_expire_entry timer/hrtimer_expire_exit" rec
one hrtimer_pair_filtered "timer/hrtimer_expire_entry timer/hrtimer_expire_exit" none
one waking_wakeup "sched/sched_waking sched/sched_wakeup" rec
one waking_wakeup_filtered "sched/sched_waking sched/sched_wakeup" none
one cpu_idle "power/cpu_idle" rec
one cpu_idle_filtered "power/cpu_idle" none
one routine8_soft_disabled "$ROUTINE" soft
one routine8_filtered "$ROUTINE" none
one routine8 "$ROUTINE" rec
EOF
sed -i "s/DURATION_/$DURATION/" "$OUT/event-cost.sh"
rm -f "$OUT/event-cost.txt"

RTSOAK=$RTSOAK bash "$here/../tests/lab/lab_run.sh" --out "$OUT" -- env EVENTS=${EVENTS:-0} bash /job/trace-cost.sh \
	>"$OUT/lab.log" 2>&1 || { tail -20 "$OUT/lab.log" >&2; die "the lab run failed (log: $OUT/lab.log)"; }

echo "# lab-trace-cost: $ROUNDS rounds of $DURATION, 1 ms timer probe on the lab's CPU 0;" \
	"rtsoak $("$RTSOAK" --version 2>/dev/null | head -1)"
if [[ -s $OUT/event-cost.txt ]]; then
	echo "# each event on the probe's wake-up path, beside an untraced run (p50 us; +us over untraced)"
	awk 'NR == 1 { base = $2 } { printf "%-28s %7.2f %+7.2f\n", $1, $2 / 1e3, ($2 - base) / 1e3 }' "$OUT/event-cost.txt"
fi
python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def res(r, m):
    j = json.load(open("%s/r%d-%s.json" % (out, r, m)))
    x = [x for x in j["results"] if x["probe"] == "timer" and x["phase"] == "all"][0]
    a = j.get("attribution")
    ev = lost = None
    if a:
        dur = j["run"]["duration_ns"] / 1e9
        ev = sum(c["events"] for c in a["cpus"]) / dur
        lost = sum(c["lost"] for c in a["cpus"])
    return x["p50_ns"], x["p99_9_ns"], x["max_ns"], ev, lost
print("%-5s %-7s %8s %9s %8s %8s %9s %8s %10s %5s" % ("round", "mode", "p50_us", "p99.9_us", "max_us",
      "p50_x", "p99.9_x", "max_x", "events/s", "lost"))
ratios = {"trace": [], "stacks": []}
for r in range(1, rounds + 1):
    off = res(r, "off")
    for m in ("off", "trace", "stacks"):
        v = res(r, m)
        x = [v[i] / off[i] for i in range(3)]
        if m != "off":
            ratios[m].append(x)
        print("%-5d %-7s %8.2f %9.2f %8.2f %8.3f %9.3f %8.3f %10s %5s" % (
            r, m, v[0] / 1e3, v[1] / 1e3, v[2] / 1e3, x[0], x[1], x[2],
            "-" if v[3] is None else "%.0f" % v[3], "-" if v[4] is None else v[4]))
goal = {"trace": 1.10, "stacks": 1.25}
for m in ("trace", "stacks"):
    med = [statistics.median(x[i] for x in ratios[m]) for i in range(3)]
    ok = med[0] <= goal[m] and med[1] <= goal[m]
    print("median %-7s p50 x%.3f  p99.9 x%.3f  max x%.3f  (goal p50, p99.9 <= %.2f: %s)" % (
        m, med[0], med[1], med[2], goal[m], "met" if ok else "NOT met"))
PY
