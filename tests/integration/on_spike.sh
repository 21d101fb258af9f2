#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rtsoak run --on-spike CMD end to end (issue 31): real SCHED_FIFO probes,
# the real spike load on the measured CPU, real commands.
#  - each command's RTSOAK_* environment names a spike of the report's spike
#    log (CPU, probe, latency, time, threshold) and the report path; the
#    counts add up (every logged spike ran the command or was skipped), and
#    --on-spike-interval bounds the starts by the run's length;
#  - the command runs on the housekeeping CPUs (config.housekeeping_cpus) as
#    SCHED_OTHER, with no descriptor but 0-2;
#  - a slow command is not piled up: one start, the other spikes skipped;
#  - a failing command is counted (its first status kept), the run exits 0;
#  - one that cannot be started (no /bin/sh) is a warning, not the end;
#  - one still running at the end gets SIGTERM (one that ignores it,
#    SIGKILL), and nothing of it is left;
#  - with -o -, the report on stdout stays JSON (the command's output is
#    on stderr), and report reads the section back;
#  - with --trace, a task named with a newline and an escape sequence
#    reaches RTSOAK_CAUSE cleaned (no control character, the same cause as
#    the report's for that spike);
#  - bad options: exit 2 with one line before anything runs.
# The --trace part runs in a mount namespace of its own (tracefs mounted
# there); where the kernel cannot trace it is skipped, the rest runs.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema
command -v chrt >/dev/null || skip_all "needs chrt(1)"
[ "$(ncpus)" -ge 2 ] || skip_all "needs 2 CPUs (a measured one and a housekeeping one)"
T=/sys/kernel/tracing
can_trace=no
if grep -qw tracefs /proc/filesystems && command -v unshare >/dev/null &&
	! "$RTSOAK" run --trace --duration 1s -q -o /dev/null 2>&1 >/dev/null |
	grep -q "built without tracefs"; then
	can_trace=yes
	if [ -z "${TRACE_TEST_NS:-}" ]; then
		rm -rf "$WORK"
		TRACE_TEST_NS=1 exec unshare -m --propagation private bash "$0" "$@"
	fi
fi
plan 27
cd "$WORK" || exit 1
export OSDIR="$WORK/cmds"

# oj FILE EXPR: EXPR over the report r, with o = its on_spike section and
# sl = the timer probe's spike log on CPU 1.
oj() {
	"$PYTHON3" -c 'import json,sys
r = json.load(open(sys.argv[1]))
o = r.get("on_spike")
sl = [s for s in r["series"] if s["probe"] == "timer" and s["cpu"] == 1][0]["spike_log"]
v = eval(sys.argv[2])
print(json.dumps(v) if not isinstance(v, str) else v)' "$1" "$2"
}
# adds_up FILE: every spike seen is a start, a failed start or a skip; every
# start ended one way; the spikes are the series' (logged or not).
adds_up() {
	[ "$(oj "$1" 'o["spikes"] == o["ran"] + o["not_started"] + sum(o["skipped"].values()) and o["ran"] == o["succeeded"] + o["failed"] + o["terminated"] + o["running"] and o["running"] == 0 and o["spikes"] == sl["logged"] + sl["overwritten"] + sl["not_logged"]')" = true ]
}

# --- each command's environment is one of the report's spikes ------------
# The spike load one priority above the probes on CPU 1, 3 ms every 300 ms
# (about 20 bursts), a 1 ms threshold; the command writes its environment,
# its CPU affinity, its policy and its descriptors to a file of its own.
mkdir -p "$OSDIR/env"
cmd='f=$OSDIR/env/$$; env | grep ^RTSOAK_ | sort > $f.env; ls -l /proc/self/fd > $f.fd; grep ^Cpus_allowed_list: /proc/self/status > $f.cpus; chrt -p $$ > $f.chrt'
"$RTSOAK" run --probes timer --cpus 1 --interval 100us --duration 6s \
	--loads spike:period=300ms:burst=3ms:cpus=1 --spike-threshold 1ms \
	--on-spike "$cmd" -o env.json >env.out 2>env.err
ok $? "run --on-spike with the spike load exits 0 ($(head -c 300 env.err))"
validate env.json
ok $? "its report is schema-valid"
ran=$(oj env.json 'o["ran"]')
n=$(ls "$OSDIR"/env/*.env 2>/dev/null | wc -l)
diag "on_spike: $(oj env.json 'o')"
[ "$ran" -ge 3 ] && [ "$n" -eq "$ran" ]
ok $? "the command ran for spikes: $ran started, $n environments written"
adds_up env.json
ok $? "the counts add up (spikes = started + skipped = the series' spikes; started = succeeded + failed + terminated)"
# Every environment names a logged spike exactly: the same time and
# latency, CPU 1, probe timer, the series' threshold, the report's path.
"$PYTHON3" - env.json "$OSDIR"/env/*.env >match.txt 2>&1 <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
sl = [s for s in r["series"] if s["probe"] == "timer" and s["cpu"] == 1][0]["spike_log"]
spikes = set(zip(sl["t_ns"], sl["latency_ns"]))
bad = []
for f in sys.argv[2:]:
    e = dict(l.rstrip("\n").split("=", 1) for l in open(f))
    want = {"RTSOAK_CPU": "1", "RTSOAK_PROBE": "timer", "RTSOAK_REPORT": "env.json",
            "RTSOAK_THRESHOLD_NS": str(sl["threshold_ns"]), "RTSOAK_PHASE": "all",
            "RTSOAK_ATTRIBUTION": "off", "RTSOAK_CAUSE": "", "RTSOAK_IRQ_AT": ""}
    for k, v in want.items():
        if e.get(k) != v:
            bad.append("%s: %s=%r, not %r" % (f, k, e.get(k), v))
    if (int(e["RTSOAK_AT_NS"]), int(e["RTSOAK_LATENCY_NS"])) not in spikes:
        bad.append("%s: no logged spike at %s with %s ns" % (f, e["RTSOAK_AT_NS"], e["RTSOAK_LATENCY_NS"]))
print("\n".join(bad) or "all match")
sys.exit(1 if bad else 0)
EOF
ok $? "each environment is a logged spike of CPU 1's timer series, with its threshold, phase and the report path ($(head -c 300 match.txt))"
# --on-spike-interval 1s: starts at least 1 s apart over the 6 s run, so
# at most 7, and one more for the end's look after the probes stopped (the
# warm-up logs no spike); without the interval every one of the spikes
# (dozens) would start one.  The rest are skipped by it.
[ "$ran" -le 8 ] && [ "$(oj env.json 'o["skipped"]["interval"] > 0 and o["interval_ns"] == 10**9')" = true ]
ok $? "the interval is honoured: $ran starts in a 6 s run at 1 s (at most 8), $(oj env.json 'o["skipped"]["interval"]') spikes skipped by it"
hk=$(jget env.json 'r["config"]["housekeeping_cpus"]')
cpus=$(cat "$OSDIR"/env/*.cpus | sort -u | tr -s '\t ' ' ')
[ -n "$hk" ] && [ "$cpus" = "Cpus_allowed_list: $hk" ]
ok $? "every command ran on the housekeeping CPUs ($hk): $cpus"
pol=$(cat "$OSDIR"/env/*.chrt | sed 's/^pid [0-9]*.s //' | sort -u | tr '\n' ';')
[ "$pol" = "current scheduling policy: SCHED_OTHER;current scheduling priority: 0;" ]
ok $? "every command ran as SCHED_OTHER priority 0 ($pol)"
# (ls's own: the descriptor of the directory it lists, /proc/PID/fd)
fds=$(cat "$OSDIR"/env/*.fd | grep -- '->' | grep -Ev -- '-> /proc/[0-9]+/fd$' |
	sed 's/.* \([0-9]*\) -> .*/\1/' | sort -u | tr '\n' ' ')
[ "$fds" = "0 1 2 " ]
ok $? "no descriptor but 0-2 in the command (${fds:-none})"
grep -q '^on-spike: ran [0-9]* for [0-9]* spike(s)' env.out
ok $? "the summary says it ($(grep '^on-spike:' env.out))"
"$RTSOAK" report env.json >env.txt 2>env.rerr && [ "$(grep '^on-spike:' env.txt)" = "$(grep '^on-spike:' env.out)" ]
ok $? "report reads it back from the file: the same line ($(head -c 200 env.rerr))"

# --- a report on standard output stays JSON ------------------------------------
# The command's output goes to rtsoak's standard error, never into it.
"$RTSOAK" run --probes timer --cpus 1 --interval 100us --duration 2s \
	--loads spike:period=300ms:burst=3ms:cpus=1 --spike-threshold 1ms \
	--on-spike 'echo "from the command: $RTSOAK_REPORT"' -q -o - >stdout.json 2>stdout.err
rc=$?
validate stdout.json && [ $rc -eq 0 ] && grep -q '^from the command: -$' stdout.err &&
	[ "$(jget stdout.json 'r["on_spike"]["ran"] >= 1')" = true ]
ok $? "with -o - the report on stdout is valid JSON and the command's output is on stderr (exit $rc, $(grep -c '^from the command' stdout.err) lines)"

# --- a slow command is not piled up ----------------------------------------
# sleep 5 in a 4 s run with no interval: one start, every later spike
# skipped while it runs; it ends within the end's wait, so it succeeded.
"$RTSOAK" run --probes timer --cpus 1 --interval 100us --duration 4s \
	--loads spike:period=300ms:burst=3ms:cpus=1 --spike-threshold 1ms \
	--on-spike 'sleep 5' --on-spike-interval 0 -q -o slow.json 2>slow.err
ok $? "a run with a slow command exits 0 ($(head -c 300 slow.err))"
diag "on_spike: $(oj slow.json 'o')"
[ "$(oj slow.json 'o["ran"] == 1 and o["skipped"]["running"] >= 3 and o["skipped"]["interval"] == 0 and o["succeeded"] == 1')" = true ] && adds_up slow.json
ok $? "one start, $(oj slow.json 'o["skipped"]["running"]') spikes skipped while it ran, none by the interval (0), and it succeeded"

# --- a failing command is counted -------------------------------------------
"$RTSOAK" run --probes timer --cpus 1 --interval 100us --duration 3s \
	--loads spike:period=300ms:burst=3ms:cpus=1 --spike-threshold 1ms \
	--on-spike 'exit 3' --on-spike-interval 0 -o fail.json >fail.out 2>fail.err
ok $? "a run whose command fails exits 0 ($(head -c 300 fail.err))"
diag "on_spike: $(oj fail.json 'o')"
[ "$(oj fail.json 'o["ran"] >= 2 and o["failed"] == o["ran"] and o["succeeded"] == 0 and o["first_failure"]["status"] == "exit 3" and o["first_failure"]["at_ns"] in sl["t_ns"]')" = true ] &&
	adds_up fail.json && grep -q '^warning: --on-spike: [0-9]* of [0-9]* command(s) failed (the first: exit 3' fail.out
ok $? "every start failed and is counted, the first with exit 3 at a logged spike's time, a warning says so ($(grep -a 'on-spike' fail.out | tr '\n' ' ' | head -c 300))"

# --- one still running at the end: SIGTERM, then SIGKILL --------------------
# The shell ignores SIGTERM (and so does the sleep it starts): after the
# end's wait the group gets SIGTERM, then SIGKILL.  Nothing of it is left.
$TAGGED "$RTSOAK" run --probes timer --cpus 1 --interval 100us --duration 2s \
	--loads spike:period=300ms:burst=3ms:cpus=1 --spike-threshold 1ms \
	--on-spike 'trap "" TERM; sleep 600' -o end.json >end.out 2>end.err
ok $? "a run whose command outlives it exits 0 ($(head -c 300 end.err))"
diag "on_spike: $(oj end.json 'o')"
[ "$(oj end.json 'o["ran"] == 1 and o["terminated"] == 1 and o["killed"] == 1 and o["failed"] == 0 and o["end_wait_ns"] > 0')" = true ] &&
	adds_up end.json && grep -q '^warning: --on-spike: the command .* still ran .* SIGTERM to its process group, then SIGKILL' end.out
ok $? "it was terminated, then killed, not counted as failed, and a warning says so"
left=$(tagged_pids)
[ -z "$left" ]
ok $? "no process of the command is left (${left:-none})"

# --- a command that cannot be started: a warning, the run goes on -----------
# /dev/null over /bin/sh in a mount namespace of rtsoak's own: the exec fails.
unshare -m --propagation private bash -c 'mount --bind /dev/null /bin/sh && exec "$@"' _ \
	"$RTSOAK" run --probes timer --cpus 1 --interval 100us --duration 2s \
	--loads spike:period=300ms:burst=3ms:cpus=1 --spike-threshold 1ms \
	--on-spike true --on-spike-interval 0 -q -o nosh.json 2>nosh.err
rc=$?
diag "on_spike: $(oj nosh.json 'o')"
[ $rc -eq 0 ] && [ "$(oj nosh.json 'o["ran"] == 0 and o["not_started"] >= 2 and o["spikes"] == o["not_started"] + sum(o["skipped"].values())')" = true ] &&
	[ "$(grep -c 'cannot start /bin/sh' nosh.err)" -eq 1 ] &&
	[ "$(jget nosh.json '[w for w in r["run"]["warnings"] if w.startswith("--on-spike: ") and "could not be started" in w] != []')" = true ]
ok $? "without a /bin/sh to run: exit $rc, every start counted as not started, one line on stderr, a warning in the report ($(head -c 200 nosh.err))"

# --- bad options: one line, exit 2, nothing run ------------------------------
# bad WANT_SUBSTRING ARGS...: exit 2, one line on stderr naming it, nothing on
# stdout, no report.
bad() {
	local want=$1
	shift
	rm -f bad.json
	"$RTSOAK" "$@" >bad.out 2>bad.err
	local rc=$?
	[ "$rc" -eq 2 ] && [ ! -s bad.out ] && [ "$(wc -l <bad.err)" -eq 1 ] &&
		grep -q -- "$want" bad.err && [ ! -e bad.json ]
	local r=$?
	diag "$* -> $rc: $(cat bad.err)"
	return $r
}
bad "--on-spike: the command is empty" run --on-spike '' --duration 1s -o bad.json &&
	bad "--on-spike: the command is empty" run --on-spike '  ' --duration 1s -o bad.json
ok $? "an empty or blank --on-spike command: exit 2, one line"
bad "--on-spike-interval: there is no --on-spike command" run --on-spike-interval 2s --duration 1s -o bad.json &&
	bad "--on-spike-interval" run --on-spike true --on-spike-interval soon --duration 1s -o bad.json
ok $? "--on-spike-interval without --on-spike, or with a bad value: exit 2, one line"
bad "unknown option '--on-spike'" compare env.json slow.json --on-spike true
ok $? "--on-spike with compare (no probes run): exit 2, one line"

# --- --trace: a hostile task name reaches RTSOAK_CAUSE cleaned ---------------
if [ "$can_trace" = yes ]; then
	[ "$(stat -f -c %T $T)" = tracefs ] || mount -t tracefs nodev $T || exit 1
	# The burster (lib.sh), named with a newline, an escape sequence, a C1
	# control (U+009B, CSI) and shell syntax: 13 bytes, the kernel keeps 15.
	name=$(printf 'e\n\033[31m\302\233$(x)')
	start_burster "$name"
	diag "the burster's comm: $(od -An -c "/proc/$burster/comm" | tr -s ' \n' ' ')"
	mkdir -p "$OSDIR/trace"
	# --trace-stacks: RTSOAK_IRQ_AT too
	"$RTSOAK" run --trace-stacks --probes timer --cpus 1 --interval 100us --duration 5s \
		--spike-threshold 2ms --on-spike-interval 0 \
		--on-spike 'env | grep ^RTSOAK_ | sort > $OSDIR/trace/$$.env' -q -o trace.json 2>trace.err
	ok $? "run --trace --on-spike with the hostile burster exits 0 ($(head -c 300 trace.err))"
	kill $burster 2>/dev/null
	wait $burster 2>/dev/null
	diag "on_spike: $(oj trace.json 'o')"
	"$PYTHON3" - trace.json "$OSDIR"/trace/*.env >cause.txt 2>&1 <<'EOF'
import json, re, sys
r = json.load(open(sys.argv[1]))
a = [x for x in r["attribution"]["series"] if x["probe"] == "timer" and x["cpu"] == 1 and x["phase"] == "all"][0]
cause_at = {t: a["causes"][i]["cause"] for t, i in a["spike_causes"]}
def clean(s):
    return re.sub("[\x00-\x1f\x7f\x80-\x9f]", "?", s)
bad, hostile = [], 0
for f in sys.argv[2:]:
    raw = open(f, "rb").read()
    if re.search(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", raw):
        bad.append("%s: a control character in %r" % (f, raw[:200]))
    lines = raw.decode("utf-8").split("\n")[:-1]
    if any(not l.startswith("RTSOAK_") for l in lines):
        bad.append("%s: a value spans lines: %r" % (f, lines))
        continue
    e = dict(l.split("=", 1) for l in lines)
    t = int(e["RTSOAK_AT_NS"])
    if e["RTSOAK_ATTRIBUTION"] == "attributed":
        if t not in cause_at or e["RTSOAK_CAUSE"] != clean(cause_at[t]):
            bad.append("%s: cause %r, the report's %r" % (f, e["RTSOAK_CAUSE"], cause_at.get(t)))
        if cause_at.get(t, "").startswith("task:e\n\x1b[31m\x9b$("):
            hostile += 1
    elif e["RTSOAK_ATTRIBUTION"] not in ("not attributed", "pending") or e["RTSOAK_CAUSE"]:
        bad.append("%s: %s with cause %r" % (f, e["RTSOAK_ATTRIBUTION"], e["RTSOAK_CAUSE"]))
print("; ".join(bad) or "%d environments, %d name the burster" % (len(sys.argv) - 2, hostile))
sys.exit(1 if bad or not hostile else 0)
EOF
	ok $? "RTSOAK_CAUSE is the report's cause of that spike, cleaned: the burster's newline, ESC and CSI as '?' ($(head -c 400 cause.txt))"
	[ "$(grep -h '^RTSOAK_CAUSE=task:e' "$OSDIR"/trace/*.env | sort -u | head -1)" = 'RTSOAK_CAUSE=task:e??[31m?$(x) (FIFO 96)' ]
	ok $? "as 'task:e??[31m?\$(x) (FIFO 96)' ($(grep -h '^RTSOAK_CAUSE=' "$OSDIR"/trace/*.env | sort | uniq -c | head -3 | tr '\n' ' '))"
	# RTSOAK_IRQ_AT: the report's top[].irq_at for the spikes it keeps
	# there (the burster runs in user space: "user"), and for every other
	# spike a kernel function, "user", "?" or "" (not attributed).
	"$PYTHON3" - trace.json "$OSDIR"/trace/*.env >irqat.txt 2>&1 <<'EOF'
import json, re, sys
r = json.load(open(sys.argv[1]))
a = [x for x in r["attribution"]["series"] if x["probe"] == "timer" and x["cpu"] == 1 and x["phase"] == "all"][0]
top = {t["t_ns"]: t["irq_at"] or "" for t in a["top"]}
bad, same = [], 0
for f in sys.argv[2:]:
    e = dict(l.rstrip("\n").split("=", 1) for l in open(f))
    t, at = int(e["RTSOAK_AT_NS"]), e.get("RTSOAK_IRQ_AT")
    if t in top:
        same += at == top[t]
        if at != top[t]:
            bad.append("%s: RTSOAK_IRQ_AT %r, the report's top[].irq_at %r" % (f, at, top[t]))
    elif at is None or not re.fullmatch(r"[A-Za-z0-9_.]*|user|\?", at) or \
            (e["RTSOAK_ATTRIBUTION"] != "attributed" and at):
        bad.append("%s: RTSOAK_IRQ_AT %r (%s)" % (f, at, e["RTSOAK_ATTRIBUTION"]))
print("; ".join(bad) or "%d of the commands' spikes in top[], all with its irq_at (%s)"
      % (same, sorted(set(top.values()))))
sys.exit(1 if bad or not same else 0)
EOF
	ok $? "RTSOAK_IRQ_AT is the report's top[].irq_at for its spikes there, a function, user, ? or empty for the rest ($(head -c 300 irqat.txt))"
else
	skip "--trace: this kernel or build cannot trace"
	skip "--trace: this kernel or build cannot trace"
	skip "--trace: this kernel or build cannot trace"
	skip "--trace: this kernel or build cannot trace"
fi
done_testing
