#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# /sbin/rtsoak-vm-init: PID 1 of the test guest (init= on the kernel command
# line).  Mounts what a Debian system has and the job directory (9p tag
# "job": the binary, a copy of the tests and schemas, the results), runs
# /job/job.sh with its output in /job/console.log, writes its exit status to
# /job/status and powers off.  Nothing here may hang: the host's watchdog is the last resort,
# not the plan.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=755 tmpfs /run
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
mount -o remount,rw / 2>/dev/null
hostname rtsoak-vm
ip link set lo up
for m in 9pnet_virtio 9p; do modprobe "$m"; done
opts=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o "$opts" job /job
if [ -x /job/job.sh ]; then
	(cd /job && ./job.sh) >/job/console.log 2>&1 </dev/null
	echo $? >/job/status
else
	echo "rtsoak-vm-init: no /job/job.sh (9p: $(grep 9p /proc/mounts | wc -l) mounts)" >&2
fi
sync
# poweroff without an init system: the kernel's own, as -no-reboot turns a
# reboot into qemu's exit too.
echo o >/proc/sysrq-trigger
sleep 10
echo b >/proc/sysrq-trigger
