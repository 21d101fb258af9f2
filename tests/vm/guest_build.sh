#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# guest_build.sh CACHE: build (or reuse) the PREEMPT_RT test guest under
# CACHE and print its directory (kernel, initrd, root.img, kernel.version).
#
# The guest: Debian bookworm (with -updates and -security, from this
# machine's apt sources) made by mmdebstrap --variant=minbase, with Debian's
# linux-image-rt-amd64 (PREEMPT_RT), rt-tests, rtla and what rtsoak and its
# integration tests need; a tiny-initramfs initrd (virtio_pci, virtio_blk,
# ext4, crc32c_generic: all the kernel needs to mount / over virtio); root a
# raw ext4 image made by mkfs.ext4 -d.  It is cached by a hash of its inputs
# (this script, the guest init, the package list) and of the candidate
# version of the RT kernel package, so a new kernel in the archive or a
# changed recipe builds a new guest, and an unchanged one costs nothing.
#
# Exit 0 and the directory on stdout; 77 when this machine cannot build one
# (no mmdebstrap, no archive), with the reason on stderr; 1 on failure.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${1:?usage: guest_build.sh CACHE}

PACKAGES=(linux-image-rt-amd64 tiny-initramfs-core kmod libjansson4 libnuma1 libtracefs1
	libtraceevent1 zlib1g python3 python3-jsonschema rt-tests rtla iproute2 procps
	util-linux numactl iputils-ping psmisc)
# The modules the initrd loads to reach /; the rest load from / (9p, ...).
INITRD_MODULES=virtio_pci,virtio_blk,ext4,crc32c_generic

for t in mmdebstrap mkfs.ext4 apt-cache sha256sum; do
	command -v "$t" >/dev/null || { echo "guest_build: $t is not installed" >&2; exit 77; }
done
kver=$(apt-cache policy linux-image-rt-amd64 2>/dev/null | awk '/Candidate:/ { print $2 }')
key=$( { cat "$here/guest_build.sh" "$here/guest_init.sh"; echo "${PACKAGES[*]} $INITRD_MODULES"
	echo "$kver"; } | sha256sum | cut -c1-16)
if [ -z "$kver" ] || [ "$kver" = "(none)" ]; then
	# No archive: an existing guest of the same recipe still serves.
	old=$(ls -d "$cache"/guest-* 2>/dev/null | tail -1)
	[ -n "$old" ] && [ -f "$old/done" ] && { echo "$old"; exit 0; }
	echo "guest_build: the archive has no linux-image-rt-amd64 (apt-get update?)" >&2
	exit 77
fi
dir=$cache/guest-$key
if [ -f "$dir/done" ]; then
	echo "$dir"
	exit 0
fi
mkdir -p "$cache" || exit 1
rm -rf "$dir" "$dir.tmp"
mkdir -p "$dir.tmp" || exit 1
tree=$dir.tmp/tree
t0=$(date +%s)
# The machine's own sources: the only archive CI can reach.
mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null)
security=$(awk '/^URIs:/ && /security/ { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null)
: "${mirror:=http://deb.debian.org/debian}"
: "${security:=http://deb.debian.org/debian-security}"
inc=$(IFS=,; echo "${PACKAGES[*]}")
# The initrd, made inside the tree for its kernel (a hook file: the command
# must expand inside the chroot, not here).
cat >"$dir.tmp/initrd-hook" <<EOF
#!/bin/sh
chroot "\$1" /bin/sh -c 'mktirfs -o /boot/initrd.tir -m no -M no --include-modules=$INITRD_MODULES "\$(ls /lib/modules | head -1)"'
EOF
chmod +x "$dir.tmp/initrd-hook"
if ! mmdebstrap --quiet --variant=minbase --include="$inc" \
	--customize-hook="$dir.tmp/initrd-hook" \
	--customize-hook='rm -rf "$1"/var/cache/apt/archives/*.deb "$1"/var/lib/apt/lists/*' \
	bookworm "$tree" \
	"deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
	"deb $security bookworm-security main" >"$dir.tmp/mmdebstrap.log" 2>&1; then
	tail -20 "$dir.tmp/mmdebstrap.log" >&2
	echo "guest_build: mmdebstrap failed (log above)" >&2
	exit 1
fi
install -m 755 "$here/guest_init.sh" "$tree/sbin/rtsoak-vm-init" || exit 1
mkdir -p "$tree/job" || exit 1
echo rtsoak-vm >"$tree/etc/hostname"
printf '127.0.0.1 localhost rtsoak-vm\n::1 localhost\n' >"$tree/etc/hosts"
release=$(ls "$tree/lib/modules" | head -1)
cp "$tree/boot/vmlinuz-$release" "$dir.tmp/kernel" &&
	cp "$tree/boot/initrd.tir" "$dir.tmp/initrd" || exit 1
echo "$release" >"$dir.tmp/kernel.version"
# Room for the tests' files on top of the ~600 MB tree; sparse.
size=$(($(du -sm "$tree" | cut -f1) + 1024))
mkfs.ext4 -q -F -L rtsoak-vm -d "$tree" "$dir.tmp/root.img" "${size}M" >&2 || exit 1
rm -rf "$tree"
echo "$(($(date +%s) - t0)) s, kernel $release (package $kver)" >"$dir.tmp/built"
touch "$dir.tmp/done"
mv "$dir.tmp" "$dir" || exit 1
# Older guests of other recipes: only the newest is kept.
for o in "$cache"/guest-*; do
	[ "$o" = "$dir" ] || rm -rf "$o"
done
echo "$dir"
