#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check_vm.sh: `make check-vm`.  Boots the PREEMPT_RT guest (guest_build.sh,
# cached under the build tree) under qemu and runs, inside it, the
# integration tests that make sense on an RT kernel with more CPUs and two
# NUMA nodes, plus vm_checks.sh (what only that guest can check):
#   job 4: 4 vCPUs in 2 nodes, vm_checks.sh and VM_TESTS;
#   job 8: 8 vCPUs in 2 nodes, vm_checks.sh (which validates full reports of
#   8 CPUs: it found the padded "  (null)" of nohz_full);
#   job trace: 4 vCPUs in 2 nodes under single-threaded TCG (thread=single),
#   vm_trace.sh and trace_attrib.sh: run --trace with the osnoise events;
#   job lab: the lab (make check-lab, tests/lab/check_lab.sh): 1 vCPU under
#   qemu's -icount, the lab module built, tests/lab/LAB_TESTS.
#   Under multi-threaded TCG, enabling trace events froze this guest (every
#   vCPU spinning, nothing on the console; CI, and a shell loop without
#   rtsoak at its 4th-5th instance); with one host thread for all vCPUs the
#   same loop and rtsoak --trace ran through (2026-12-03).
# Each test's TAP output comes back over virtio-9p and goes through
# automake's tap-driver into BUILD/vm/JOB/NAME.{log,trs}, so .ci/run counts
# them with the other suites.  Prints one line per job and a total; exit 0
# when every test passed, 1 otherwise.
#
# The guest sees one 9p share, the job directory: the binary, a copy of
# tests/ and docs/ (as /job/src) and the results.  A job that does not finish
# in time prints what it got to: the tests it started, the guest's heartbeat
# (uptime and load every 30 s) and the kernel's last lines.
#
# Outside CI a machine without qemu, mmdebstrap or the Debian archive skips
# with the reason (exit 0); in CI (CI=true) that is a failure: the RT guest
# must run there.  Environment: RTSOAK (the binary), top_srcdir, builddir,
# VM_TIMEOUT (seconds per job; default 1500 for job 4, 900 for the others),
# VM_TEST_TIMEOUT (per test inside, default 600), VM_JOBS ("4 8 trace"), VM_TESTS
# (the integration tests of job 4, by name), VM_CHECKS (0: leave vm_checks.sh
# out).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${builddir:=$(pwd)}"
: "${RTSOAK:=$builddir/rtsoak}"
: "${VM_TEST_TIMEOUT:=600}"
: "${VM_JOBS:=4 8 trace}"
# run_checkpoint is not among them: kill -9 at random points and checkpoint
# recovery are the same on an RT kernel, and in the guest it took 314 s of
# job 4's 790 (the host suite runs it twice, plain and under ASan).
: "${VM_TESTS:=run_basic run_sched run_signals net_local net_remote loads_each tweaks sysinfo report_roundtrip}"

skip_or_fail() {
	if [ "${CI:-}" = true ]; then
		echo "check-vm: FAILED: $* (CI must run the RT guest)"
		exit 1
	fi
	echo "check-vm: SKIP: $*"
	exit 0
}

[ "$(id -u)" -eq 0 ] || skip_or_fail "needs root (9p with security_model=none, SCHED_FIFO inside)"
command -v qemu-system-x86_64 >/dev/null ||
	skip_or_fail "qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"
[ -x "$RTSOAK" ] || { echo "check-vm: no rtsoak binary at $RTSOAK (make first)"; exit 1; }
t0=$(date +%s)
guest=$(bash "$here/guest_build.sh" "$builddir/vm-cache")
rc=$?
[ "$rc" -eq 77 ] && skip_or_fail "cannot build the guest (reason above)"
[ "$rc" -eq 0 ] || { echo "check-vm: FAILED: the guest did not build"; exit 1; }
echo "check-vm: guest $(cat "$guest/built") [$guest]"

# Emulated (TCG) is about ten times slower than the host for rtsoak's own
# work: the tests' bounds on machine speed scale by it (lib.sh), never a
# latency bound (nothing asserts latency).
scale=10
[ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo && scale=2
total_pass=0 total_fail=0 status=0
for name in $VM_JOBS; do
	cpus=$name thread=multi icount=0 label=vm$name
	[ "$name" = trace ] && cpus=4 thread=single
	[ "$name" = lab ] && cpus=1 thread=single icount=1 label=lab
	job=$builddir/vm/job-$name
	rm -rf "$job"
	mkdir -p "$job/results" || exit 1
	cp "$RTSOAK" "$job/rtsoak" || exit 1
	mkdir "$job/src" && cp -r "$top_srcdir/tests" "$top_srcdir/docs" "$job/src/" || exit 1
	list=
	case $name in
	trace) list="vm_trace trace_attrib" ;;
	lab)
		list=${LAB_TESTS:-lab_accuracy lab_attrib lab_attrib_fn lab_onspike lab_fidelity lab_ab lab_timing}
		cp "$builddir/lab/irqoff/rtsoak_irqoff.ko" "$job/" ||
			{ echo "check-vm: no lab module (make lab-modules)"; exit 1; }
		;;
	*)
		[ "${VM_CHECKS:-1}" = 0 ] || list=vm_checks
		[ "$name" = 4 ] && list="$list $VM_TESTS"
		;;
	esac
	# The job: each test with the suite's environment and time limit, its
	# output and exit status kept for the host.
	{
		echo '#!/bin/bash'
		echo 'export RTSOAK=/job/rtsoak top_srcdir=/job/src PYTHON3=/usr/bin/python3'
		echo 'export SCHEMA=/job/src/docs/report-schema.json'
		echo "export RTSOAK_TEST_TIMEOUT=$VM_TEST_TIMEOUT RTSOAK_TIME_SCALE=$scale"
		echo 'echo "guest: $(uname -r), $(nproc) CPUs, nodes $(cat /sys/devices/system/node/online)"'
		echo '(while :; do echo "up $(cut -d" " -f1 /proc/uptime) s, load $(cut -d" " -f1-3 /proc/loadavg)"; sleep 30; done) >heartbeat 2>&1 &'
		for t in $list; do
			case $t in
			vm_*) path=/job/src/tests/vm/$t.sh ;;
			lab_*) path=/job/src/tests/lab/$t.sh ;;
			*) path=/job/src/tests/integration/$t.sh ;;
			esac
			echo "echo \"$t: started\"; s=\$SECONDS"
			echo "bash /job/src/tests/time_limit.sh bash $path >results/$t.log 2>&1; echo \$? >results/$t.rc"
			echo "echo \"$t: rc \$(cat results/$t.rc), \$((SECONDS - s)) s\""
		done
	} >"$job/job.sh"
	chmod +x "$job/job.sh"
	limit=${VM_TIMEOUT:-$([ "$name" = 4 ] && echo 1500 || echo 900)}
	VM_TCG_THREAD=$thread VM_ICOUNT=$icount bash "$here/guest_run.sh" "$guest" "$job" "$cpus" "$limit"
	jrc=$?
	sed 's/^/  /' "$job/console.log" 2>/dev/null
	if [ "$jrc" -ne 0 ]; then
		echo "check-vm: job $name: the guest run failed ($jrc); heartbeat (last 5):"
		tail -5 "$job/heartbeat" 2>/dev/null | sed 's/^/    /'
		# the test it was in: how far it got
		for t in $list; do
			[ -f "$job/results/$t.log" ] && [ ! -f "$job/results/$t.rc" ] &&
				{ echo "  $t got to:"; tail -15 "$job/results/$t.log" | sed 's/^/    /'; }
		done
		status=1
	fi
	pass=0 fail=0
	for t in $list; do
		out=$job/$t
		if [ -f "$job/results/$t.rc" ]; then
			rc=$(cat "$job/results/$t.rc")
		else
			rc=99
			echo "Bail out! $t did not run in the guest (the job ended first)" >"$job/results/$t.log"
		fi
		# automake's own TAP driver, fed the saved output: the same PASS,
		# FAIL, SKIP and ERROR rules as make check.
		env AM_TAP_AWK=awk bash "$top_srcdir/build-aux/tap-driver.sh" --test-name "$label/$t" \
			--log-file "$out.log" --trs-file "$out.trs" --color-tests no \
			--enable-hard-errors yes --expect-failure no -- \
			bash -c 'cat "$1"; exit "$2"' _ "$job/results/$t.log" "$rc" >"$out.summary"
		grep -E '^(FAIL|ERROR|XPASS|SKIP)' "$out.summary" | sed 's/^/  /'
		# A test that failed or timed out: the end of its log (time_limit.sh
		# puts what every process of a hung test was doing there), so that
		# CI's output says why without the guest's files.
		if grep -qE '^(FAIL|ERROR)' "$out.summary"; then
			echo "  $t: the last 40 lines of its log:"
			tail -40 "$job/results/$t.log" | sed 's/^/    | /'
		fi
		p=$(grep -c '^:test-result: PASS' "$out.trs")
		f=$(grep -cE '^:test-result: (FAIL|ERROR|XPASS)' "$out.trs")
		s=$(grep -c '^:test-result: SKIP' "$out.trs")
		# a skip inside the guest is a check that did not run: count it failed
		pass=$((pass + p))
		fail=$((fail + f + s))
	done
	echo "check-vm: job $name ($cpus vCPUs, TCG $thread): $pass passed, $fail failed"
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
	[ "$fail" -eq 0 ] || status=1
done
[ "$total_pass" -gt 0 ] || status=1
echo "check-vm: $total_pass passed, $total_fail failed ($(($(date +%s) - t0)) s)"
exit $status
