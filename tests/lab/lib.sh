# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# lib.sh: helpers of the lab tests (tests/lab/lab_*.sh), which run inside
# the instruction-timed guest (check_lab.sh, docs/LAB.md) with the
# integration tests' TAP helpers.  Sourced, not run.
# shellcheck source=../integration/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"

# The lab module (make lab-modules), copied into the job by check_vm.sh.
: "${LAB_MODULE:=/job/rtsoak_irqoff.ko}"
LAB_P=/sys/module/rtsoak_irqoff/parameters

# lab_module: load the module once; a lab test without it is a failure (the
# lab exists to inject it), so the whole test bails out.
lab_module() {
	[ -d "$LAB_P" ] && return 0
	insmod "$LAB_MODULE" 2>"$WORK/insmod.err" && return 0
	echo "Bail out! insmod $LAB_MODULE: $(head -c 300 "$WORK/insmod.err")"
	exit 1
}

# lab_hold MODE HOLD_US PERIOD_US [CPU]: holds of HOLD_US every PERIOD_US on
# CPU (default 0) from now on; lab_off stops them.  The period is written
# last, so no hold is made with the previous mode or length.
lab_hold() {
	echo 0 >"$LAB_P/period_us" && echo "$1" >"$LAB_P/mode" && echo "${4:-0}" >"$LAB_P/cpu" &&
		echo "$2" >"$LAB_P/hold_us" && echo "$3" >"$LAB_P/period_us"
}
lab_off() { echo 0 >"$LAB_P/period_us"; }
lab_holds() { cat "$LAB_P/holds"; }
