#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# lab_modules.sh: `make lab-modules`.  Builds the lab's kernel module
# (tests/lab/irqoff/) for the test guest's kernel into
# BUILD/lab/irqoff/rtsoak_irqoff.ko, against Debian's
# linux-headers-<guest kernel> (gcc-12, Debian 12's own compiler, as the
# kernel was built with).  The guest is built or reused first
# (tests/vm/guest_build.sh, cached): its kernel.version names the headers.
# Environment: top_srcdir, builddir, LAB_KDIR (a kernel build tree instead
# of /lib/modules/<guest kernel>/build).  Exit 0 when built; 77 when this
# machine cannot (no guest, no headers: the reason on stderr); 1 on failure.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${builddir:=$(pwd)}"
guest=$(bash "$top_srcdir/tests/vm/guest_build.sh" "$builddir/vm-cache")
rc=$?
[ "$rc" -eq 0 ] || { echo "lab-modules: no test guest to build for (guest_build.sh: $rc)" >&2; exit "$rc"; }
kver=$(cat "$guest/kernel.version")
kdir=${LAB_KDIR:-/lib/modules/$kver/build}
if [ ! -f "$kdir/Makefile" ]; then
	echo "lab-modules: no kernel build tree at $kdir (apt-get install linux-headers-$kver)" >&2
	exit 77
fi
out=$builddir/lab/irqoff
ko=$out/rtsoak_irqoff.ko
# Built already for this kernel from these sources: kbuild would only read
# the kernel's whole Makefile tree again (minutes at nice 19 beside a build).
if [ -f "$ko" ] && [ "$ko" -nt "$top_srcdir/tests/lab/irqoff/rtsoak_irqoff.c" ] &&
	[ "$ko" -nt "$top_srcdir/tests/lab/irqoff/Kbuild" ] &&
	[ "$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)" = "$kver" ]; then
	echo "lab-modules: $ko for $kver (up to date)"
	exit 0
fi
mkdir -p "$out" || exit 1
# kbuild builds where the sources are: a copy in the build tree keeps the
# source tree clean (and read-only in distcheck).
cp "$top_srcdir/tests/lab/irqoff/rtsoak_irqoff.c" "$top_srcdir/tests/lab/irqoff/Kbuild" "$out/" || exit 1
make -s -C "$kdir" M="$out" modules >"$out/build.log" 2>&1 ||
	{ tail -30 "$out/build.log" >&2; echo "lab-modules: the module did not build (log above)" >&2; exit 1; }
# the module's vermagic must be the guest's kernel, or insmod refuses it
magic=$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)
[ -z "$magic" ] || [ "$magic" = "$kver" ] ||
	{ echo "lab-modules: built for $magic, the guest runs $kver" >&2; exit 1; }
echo "lab-modules: $ko for $kver"
