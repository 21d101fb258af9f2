#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check_lab.sh: `make check-lab`.  Builds the lab module for the test
# guest's kernel (lab_modules.sh) and runs tests/lab/lab_*.sh in the guest
# under qemu's -icount with one vCPU (check_vm.sh's job "lab": the same
# boot, TAP and result files as check-vm, under BUILD/vm/job-lab/).  Lab
# tests expect exact figures: the machine is exact (docs/LAB.md).
# Outside CI a machine that cannot build the guest or the module skips with
# the reason; in CI (CI=true) that is a failure.  LAB_TESTS: which tests
# (default every one), VM_TIMEOUT: seconds for the whole job (default 900).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${builddir:=$(pwd)}"
export top_srcdir builddir
t0=$(date +%s)
bash "$here/lab_modules.sh"
rc=$?
if [ "$rc" -eq 77 ] && [ "${CI:-}" != true ]; then
	echo "check-lab: SKIP: cannot build the lab module (reason above)"
	exit 0
fi
[ "$rc" -eq 0 ] || { echo "check-lab: FAILED: the lab module did not build"; exit 1; }
VM_JOBS=lab VM_TIMEOUT=${VM_TIMEOUT:-900} bash "$top_srcdir/tests/vm/check_vm.sh"
rc=$?
echo "check-lab: $(($(date +%s) - t0)) s"
exit $rc
