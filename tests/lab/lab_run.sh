#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# lab_run.sh [--out DIR] [--timeout S] -- COMMAND [ARG...]: run one command
# line in the lab, the PREEMPT_RT test guest (tests/vm/guest_build.sh) booted
# with one vCPU under qemu's -icount: its clock is its instruction count
# (docs/LAB.md).  Benchmarks, check-lab and people use this same path.
#
# In the guest: the build's rtsoak first on PATH, the lab module at
# /job/rtsoak_irqoff.ko when `make lab-modules` has built it (insmod it
# yourself: the command decides its parameters), the source's tests/ and
# docs/ under /job/src, and the working directory DIR (default: a new
# directory under BUILD/lab/), which is the host's DIR too: what the command
# writes there is on the host when it ends.  DIR must be the caller's and
# writable by nobody else; its bin/ and src/ are lab_run.sh's (an earlier
# job's are replaced; others by those names are refused).  Its output goes to
# DIR/console.log and to this script's stdout; the exit status is the
# command's (125 when the guest did not boot, 124 when it did not finish in
# S seconds, default 900).
#
# Environment: builddir (default: the current directory, a build tree),
# top_srcdir (default: this script's source tree), RTSOAK (default
# builddir/rtsoak), LAB_CPUS (vCPUs, default 1: SMP needs qemu >= 10 under
# icount, and its vCPUs take turns in one host thread, docs/LAB.md).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${builddir:=$(pwd)}"
: "${RTSOAK:=$builddir/rtsoak}"
out='' limit=900
usage() { echo "usage: lab_run.sh [--out DIR] [--timeout S] -- COMMAND [ARG...]" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=${2:?}; shift 2 ;;
	--timeout) limit=${2:?}; shift 2 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
[ $# -gt 0 ] || usage
[ "$(id -u)" -eq 0 ] || { echo "lab_run: needs root (9p with security_model=none)" >&2; exit 2; }
command -v qemu-system-x86_64 >/dev/null ||
	{ echo "lab_run: qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)" >&2; exit 2; }
[ -x "$RTSOAK" ] || { echo "lab_run: no rtsoak binary at $RTSOAK (make first)" >&2; exit 2; }
# SMP under icount: qemu 7.2 (Debian 12's) hangs at boot; 10 boots, with
# its vCPUs taking turns in one thread (docs/LAB.md, Limits).
if [ "${LAB_CPUS:-1}" -gt 1 ]; then
	qv=$(qemu-system-x86_64 --version | sed -n 's/^QEMU emulator version \([0-9]*\)\..*/\1/p')
	[ "${qv:-0}" -ge 10 ] || { echo "lab_run: LAB_CPUS=$LAB_CPUS needs qemu >= 10 under -icount (this is ${qv:-?}: it hangs at boot; bookworm-backports has 10)" >&2; exit 2; }
	echo "lab_run: $LAB_CPUS vCPUs take turns in one host thread: a busy vCPU delays another's timer by up to its turn (~0.8 ms measured), an emulator artifact" >&2
fi
guest=$(bash "$top_srcdir/tests/vm/guest_build.sh" "$builddir/vm-cache") ||
	{ echo "lab_run: the guest did not build (tests/vm/guest_build.sh)" >&2; exit 2; }
refuse() { echo "lab_run: $*" >&2; exit 2; }
if [ -z "$out" ]; then
	mkdir -p "$builddir/lab" && out=$(mktemp -d "$builddir/lab/run.XXXXXX") || exit 2
fi
# DIR is written as root and shared read-write with the guest: it must be
# ours, not a link, and writable by nobody else.
[ -L "$out" ] && refuse "--out $out is a symbolic link"
mkdir -p "$out" || exit 2
[ "$(stat -c %u "$out")" = "$(id -u)" ] || refuse "--out $out is not owned by $(id -un)"
[ $((0$(stat -c %a "$out") & 022)) -eq 0 ] || refuse "--out $out is writable by its group or others"
out=$(cd "$out" && pwd -P)
# What the job needs, in the one share, beside the command's own files:
# bin/ and src/ of an earlier job are replaced, anything else by those
# names is refused, never removed.
for d in bin src; do
	if [ -e "$out/$d" ] || [ -L "$out/$d" ]; then
		[ ! -L "$out/$d" ] && [ -f "$out/$d/.rtsoak-lab" ] ||
			refuse "$out/$d exists and lab_run.sh did not make it"
		rm -rf -- "${out:?}/$d"
	fi
	mkdir "$out/$d" && touch "$out/$d/.rtsoak-lab" || exit 2
done
rm -f -- "$out/job.sh" "$out/status"
cp "$RTSOAK" "$out/bin/rtsoak" && cp -r "$top_srcdir/tests" "$top_srcdir/docs" "$out/src/" || exit 2
ko=$builddir/lab/irqoff/rtsoak_irqoff.ko
[ -f "$ko" ] && { cp "$ko" "$out/rtsoak_irqoff.ko" || exit 2; }
{
	echo '#!/bin/bash'
	echo 'export PATH=/job/bin:$PATH RTSOAK=/job/bin/rtsoak top_srcdir=/job/src PYTHON3=/usr/bin/python3'
	echo 'export SCHEMA=/job/src/docs/report-schema.json'
	printf '%q ' "$@"
	echo
} >"$out/job.sh"
chmod +x "$out/job.sh"
VM_ICOUNT=1 bash "$top_srcdir/tests/vm/guest_run.sh" "$guest" "$out" "${LAB_CPUS:-1}" "$limit"
rc=$?
cat "$out/console.log" 2>/dev/null
exit $rc
