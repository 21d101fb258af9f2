#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# guest_run.sh GUEST JOB CPUS TIMEOUT: boot the guest (guest_build.sh's
# directory) with CPUS vCPUs in two NUMA nodes (one when CPUS is 1), JOB
# shared read-write over virtio-9p (one share: what the job needs is copied
# into it), run JOB/job.sh in it and return its exit status (JOB/status).  Root is opened with
# snapshot=on: nothing a job does survives it.  VM_KERNEL and VM_INITRD boot
# another kernel image and initrd on the same root (docs/LAB.md: A/B a
# kernel).
#
# TCG, not KVM: this machine's /dev/kvm is a paravirtual KVM that cannot run
# a stock kernel; KVM is used only where the CPU flags show vmx or svm.
# qemu can freeze instead of exiting on an internal error, so it runs under
# a watchdog (TIMEOUT seconds, then SIGTERM, then SIGKILL) and a job that
# did not finish is a failure, never a wait.
set -uo pipefail
guest=${1:?usage: guest_run.sh GUEST JOB CPUS TIMEOUT}
job=$2 cpus=$3 limit=$4
rm -f "$job/status" "$job/console.log"

# VM_TCG_THREAD=single runs every vCPU in one host thread (qemu's
# thread=single) instead of one each (multi, the default): the guest's
# trace events freeze it under multi (check_vm.sh, job "trace").
accel=tcg,thread=${VM_TCG_THREAD:-multi}
icount=()
if [ "${VM_ICOUNT:-0}" = 1 ]; then
	# The lab (tests/lab/): the guest's clock is its instruction count, one
	# nanosecond per instruction, and jumps over idle time (sleep=off), so
	# nothing the host does to qemu reaches what the guest measures.  One
	# host thread for every vCPU: icount needs it.
	accel=tcg,thread=single
	icount=(-icount shift=0,sleep=off)
elif [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then
	accel=kvm
fi
mem=2048
numa=()
if [ "$cpus" -gt 1 ]; then
	half=$((cpus / 2))
	numa=(-object memory-backend-ram,id=m0,size=$((mem / 2))M
		-object memory-backend-ram,id=m1,size=$((mem / 2))M
		-numa node,nodeid=0,cpus=0-$((half - 1)),memdev=m0
		-numa node,nodeid=1,cpus=$half-$((cpus - 1)),memdev=m1)
fi
t0=$(date +%s)
timeout -k 10 "$limit" qemu-system-x86_64 \
	-accel "$accel" "${icount[@]}" -cpu max -m "${mem}M" -smp "$cpus" "${numa[@]}" \
	-kernel "${VM_KERNEL:-$guest/kernel}" -initrd "${VM_INITRD:-$guest/initrd}" \
	-append "root=/dev/vda rw console=ttyS0 init=/sbin/rtsoak-vm-init loglevel=4 panic=-1" \
	-drive file="$guest/root.img",format=raw,if=virtio,snapshot=on \
	-virtfs local,path="$job",mount_tag=job,security_model=none \
	-nic none -display none -serial file:"$job/serial.log" -monitor none \
	-no-reboot </dev/null
rc=$?
echo "guest_run: qemu ($accel, $cpus vCPUs) exited $rc after $(($(date +%s) - t0)) s" >&2
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	echo "guest_run: the guest did not finish within $limit s; its kernel's last words (serial log $job/serial.log):" >&2
	tail -25 "$job/serial.log" | sed 's/^/    /' >&2
	return 124 2>/dev/null || exit 124
fi
if [ ! -s "$job/status" ]; then
	echo "guest_run: the job wrote no status (serial log tail:)" >&2
	tail -20 "$job/serial.log" >&2
	exit 125
fi
exit "$(cat "$job/status")"
