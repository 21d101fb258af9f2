# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh: shared helpers for the integration tests (TAP output for
# automake's tap-driver).  Sourced, not run.
set -u

: "${RTSOAK:=$(cd "$(dirname "$0")/../.." && pwd)/rtsoak}"
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${SCHEMA:=$top_srcdir/docs/report-schema.json}"
: "${PYTHON3:=/usr/bin/python3}"
# How much slower than real hardware this machine runs rtsoak: bounds that
# are about machine speed (exits within 1 s of a signal, a run long enough
# for a checkpoint to fail and recover) are multiplied by it.  1 here;
# make check-vm sets 10 for its qemu TCG guest.  Never a latency bound.
: "${RTSOAK_TIME_SCALE:=1}"

tap_n=0
tap_failed=0
WORK=$(mktemp -d /tmp/rtsoak-it.XXXXXX)
chmod 755 "$WORK"
trap 'rm -rf "$WORK"' EXIT

plan() { echo "1..$1"; }

# ok STATUS NAME: STATUS 0 passes.
ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}

diag() { echo "# $*"; }

# skip REASON: one planned check that cannot run here, said why.
skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # SKIP $*"
}

# same_bytes EXPECTED ACTUAL: 0 when the two files are byte for byte equal;
# otherwise 1, and the first lines that differ as a unified diff in TAP
# diagnostics (a byte offset says where, not what).
same_bytes() {
	cmp -s "$1" "$2" && return 0
	diff -u -a --label "expected: $1" --label "actual: $2" "$1" "$2" 2>&1 | head -n 40 |
		sed 's/^/# /'
	return 1
}

# skip_all REASON: the whole test cannot run here.  Under automake's TAP
# driver a skip is the plan "1..0 # SKIP reason" with exit 0 (exit 77 would
# be reported as an ERROR); the reason lands in the test's log.
skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

# wait_until SECONDS CMD...: poll CMD every 0.1 s until it succeeds (0) or
# SECONDS pass (1).  Tests wait for a state, not for a fixed time: under
# qemu TCG (make check-vm) a second of host time is a lot less guest work.
wait_until() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.1
	done
}

# report_says FILE EXPR: FILE is a complete JSON document (a checkpoint is
# replaced atomically) and the python EXPR over it (variable r) is true.
report_says() {
	[ -s "$1" ] && "$PYTHON3" -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(not eval(sys.argv[2]))' "$1" "$2" 2>/dev/null
}

# merged_says FILE EXPR: report_says on FILE as `rtsoak report FILE --json`
# gives it back: a checkpoint merged with its series log (serieslog.h).
merged_says() {
	[ -s "$1" ] && "$RTSOAK" report "$1" --json "$1.merged" 2>/dev/null &&
		report_says "$1.merged" "$2"
}

done_testing() { [ "$tap_failed" -eq 0 ]; exit $?; }

# validate FILE...: schema + invariants; prints problems as diagnostics.
validate() {
	local out
	out=$("$PYTHON3" "$top_srcdir/tests/validate_report.py" "$SCHEMA" "$@" 2>&1)
	local rc=$?
	[ -n "$out" ] && echo "$out" | sed 's/^/# /'
	return $rc
}

# jq-like extraction with python: jget FILE EXPR (EXPR uses variable r).
jget() {
	"$PYTHON3" -c 'import json,sys; r=json.load(open(sys.argv[1])); v=eval(sys.argv[2]); print(json.dumps(v) if not isinstance(v,str) else v)' "$1" "$2"
}

require_python_jsonschema() {
	"$PYTHON3" -c 'import jsonschema' 2>/dev/null ||
		skip_all "python3-jsonschema is not installed (apt-get install python3-jsonschema)"
}

require_root() {
	[ "$(id -u)" -eq 0 ] || skip_all "needs root for SCHED_FIFO (CI runs as root)"
}

online_cpus() { cat /sys/devices/system/cpu/online; }
ncpus() { "$PYTHON3" -c 'import os; print(len(os.sched_getaffinity(0)))'; }

# Processes started by a run are found by a tag in their environment (load
# workers and the commands they exec inherit it), whatever their process
# group or parent: run rtsoak as `rtsoak_tagged ARGS`, then `tagged_pids`
# lists whatever of that run is still alive.
# In the background use `$TAGGED "$RTSOAK" ... &` so that $! is rtsoak's
# own pid (a backgrounded function would be a subshell).
RUN_TAG="rtsoak-test-$$-$RANDOM"
TAGGED="env RTSOAK_TEST_TAG=$RUN_TAG"
rtsoak_tagged() { $TAGGED "$RTSOAK" "$@"; }
tagged_pids() {
	grep -l -a "RTSOAK_TEST_TAG=$RUN_TAG" /proc/[0-9]*/environ 2>/dev/null |
		sed 's|/proc/\([0-9]*\)/environ|\1|' | tr '\n' ' '
}

# tunables_lock: the tests that write the machine's tunables (--set, restore,
# the unit test of tweak.c) share some of them (stat_interval, netdev_budget,
# every slab's cpu_partial): run in parallel (make -j2), one would restore
# what the other just set and read back.  Each takes this lock for its whole
# life (fd 9, kept across exec); tests/unit/test_tweak.c takes the same one.
TUNABLES_LOCK=/tmp/rtsoak-test-tunables.lock
tunables_lock() {
	exec 9>>"$TUNABLES_LOCK" || skip_all "cannot open $TUNABLES_LOCK"
	flock -w 500 9 || { echo "Bail out! waited 500 s for $TUNABLES_LOCK"; exit 1; }
}

# private_run: run the rest of this test in a mount namespace of its own with
# a tmpfs on /run.  rtsoak keeps its locks and its records of live journals in
# /run/rtsoak; a test that SIGKILLs runs with --set leaves records of killed
# runs there on purpose, and on the real /run they would refuse every other
# test's runs (the suite runs in parallel).  Re-executes the script (call it
# right after require_root); the tunables it writes are the machine's all
# the same (only mounts are private).
private_run() {
	[ -n "${RTSOAK_TEST_PRIVATE_RUN:-}" ] && return 0
	tunables_lock
	command -v unshare >/dev/null || skip_all "needs unshare(1) for a private /run"
	rm -rf "$WORK"
	RTSOAK_TEST_PRIVATE_RUN=1 exec unshare -m --propagation private \
		bash -c 'mount -t tmpfs -o mode=0755 tmpfs /run && exec bash "$0" "$@"' "$0" "$@"
}

# Time bounds.  A test never asserts an absolute time: a shared machine
# running other jobs stretches every figure.  "At once", "promptly" and
# "fast" are ratios against a reference measured in the same test, which the
# same load stretches alike.  Speed goals proper live in bench/.
#
# now_ms: the monotonic-enough wall clock in milliseconds.
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# best_ms CMD...: the best of 3 wall times (ms) of CMD (its output dropped);
# empty when CMD fails.  Other work on the machine only adds time.
best_ms() {
	local best='' t0 t _
	for _ in 1 2 3; do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || return 1
		t=$((($(date +%s%N) - t0) / 1000000))
		{ [ -z "$best" ] || [ "$t" -lt "$best" ]; } && best=$t
	done
	echo "$best"
}

# ref_run_ms: the reference of "at once": the best of 3 wall times (ms) of
# the smallest whole run on this machine now (`run --loops 1 --warmup 0`:
# start-up, the checks, the probe threads, one sample, the report written,
# exit).  A refusal at parse time does a fraction of that; a run that ends
# on a signal does its tail (threads stopped, report written).  Take it
# once (ref=$(ref_run_ms)) next to what it bounds.  0 when the reference
# run fails (the bound then fails, saying so).
ref_run_ms() {
	best_ms "$RTSOAK" run --loops 1 --warmup 0 --probes timer --cpus 0 -q -o "$WORK/.ref-run.json" ||
		echo 0
	rm -f "$WORK/.ref-run.json"
}

# walk_ref_ms: the best of 3 wall times (ms) of find(1) listing 100000
# entries of /sys (SYSINFO_RECORD_MAX_ENTRIES, what a --record or --set glob
# may read before it is refused): the reference of "a glob stops at its
# limit".  0 when it fails.
walk_ref_ms() {
	best_ms sh -c 'find /sys -maxdepth 8 2>/dev/null | head -n 100000 >/dev/null' || echo 0
}

# walk_factor: how many of those walks a glob of the limit's entries may take
# in this build of rtsoak: 10 (its glob took 3.4 to 3.8 walks), 40 where it
# is built with ASan (its instrumented glob against an uninstrumented find:
# 15.3 walks in CI's distcheck, 2716 ms against 150 ms).
walk_factor() {
	if ldd "$RTSOAK" 2>/dev/null | grep -q libasan; then echo 40; else echo 10; fi
}

# trace_test_ns "$@": a --trace test's common start.  Skips where the
# kernel, unshare(1) or rtsoak's build cannot trace; then runs the test again
# in a mount namespace of its own (its tracefs mount stays there), which
# needs 2 CPUs (a measured one and a housekeeping one).
trace_test_ns() {
	grep -qw tracefs /proc/filesystems || skip_all "this kernel has no tracefs"
	command -v unshare >/dev/null || skip_all "needs unshare(1)"
	local err
	err=$("$RTSOAK" run --trace --duration 1s -q -o /dev/null 2>&1 >/dev/null)
	case "$err" in *"built without tracefs"*) skip_all "rtsoak was built without tracefs support" ;; esac
	if [ -z "${TRACE_TEST_NS:-}" ]; then
		rm -rf "$WORK"
		TRACE_TEST_NS=1 exec unshare -m --propagation private bash "$0" "$@"
	fi
	[ "$(ncpus)" -ge 2 ] || skip_all "needs 2 CPUs (a measured one and a housekeeping one)"
}

# start_burster NAME: a shell under the task name NAME (the kernel keeps 15
# bytes of it), busy about 20 ms (a few thousand loop turns) every 300 ms
# on CPU 1 at FIFO 96: a spike cause with a name of the test's choosing.
# Sets $burster, and the EXIT trap that stops it.
start_burster() {
	cp "$(command -v dash || command -v sh)" "$WORK/$1"
	taskset -c 1 chrt -f 96 "$WORK/$1" -c \
		'while :; do i=0; while [ $i -lt 4000 ]; do i=$((i + 1)); done; sleep 0.3; done' &
	burster=$!
	trap 'kill $burster 2>/dev/null; rm -rf "$WORK"' EXIT
	sleep 0.2
}
