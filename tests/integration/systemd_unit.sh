#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# contrib/rtsoak-soak@.service is sandboxed (issue 28): systemd-analyze security rates it
# below 5 (it was 9.6 UNSAFE), systemd-analyze verify accepts it, and a soak still runs under
# what it restricts.  systemd is not PID 1 in CI, so the sandbox is rebuilt here from the
# unit's own lines: a mount namespace whose root is read-only but for the report's and the
# textfile's directories (ProtectSystem=strict, ReadWritePaths=, StateDirectory=), a private
# /run with a 0700 /run/rtsoak (RuntimeDirectory=), an empty /home (ProtectHome=), /sys,
# /proc/sys and the cgroup file systems read-only (ProtectKernelTunables=,
# ProtectControlGroups=), the unit's TMPDIR, its capability bounding set and no_new_privs.
# Not rebuilt: PrivateTmp= (TMPDIR is not /tmp), the seccomp filters (MemoryDenyWriteExecute=,
# RestrictNamespaces=, RestrictAddressFamilies=, LockPersonality=), the device policy.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema
command -v systemd-analyze >/dev/null || skip_all "systemd-analyze is not installed"
UNIT=$top_srcdir/contrib/rtsoak-soak@.service

plan 4
cd "$WORK" || exit 1

# --- the score
systemd-analyze security --offline=true "$UNIT" >sec.out 2>&1
score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' sec.out)
[ -n "$score" ] && "$PYTHON3" -c "import sys; sys.exit(not float('$score') < 5.0)"
ok $? "systemd-analyze security rates the unit below 5 (${score:-no score}: $(grep -v '^✓' sec.out | grep '✗' | awk '{print $2}' | tr '\n' ' ' | head -c 200))"

# --- verify: an instance, with ExecStart naming this rtsoak (and no man page lookup)
mkdir units
sed -e "s|/usr/local/bin/rtsoak|$RTSOAK|" -e '/^Documentation=/d' "$UNIT" >units/rtsoak-soak@.service
(cd units && systemd-analyze verify "$WORK/units/rtsoak-soak@test.service") >verify.out 2>&1
rc=$?
sed 's/^/# verify: /' verify.out
[ $rc -eq 0 ] && ! grep -qi "unknown\|invalid\|ignoring" verify.out
ok $? "systemd-analyze verify accepts an instance ($rc)"

# --- a soak under the sandbox, with the unit's ExecStart (3 s instead of 24 h)
unit_value() { sed -n "s/^$1=//p" "$UNIT" | tail -1; }
exec_start=$(sed -n '/^ExecStart=/,/[^\\]$/p' "$UNIT" | sed 's/^ExecStart=//; s/\\$//' | tr '\n' ' ')
st=$WORK/state tf=$WORK/textfile
mkdir -p "$st/tmp" "$tf" && chmod 755 "$st" "$tf"
args=$(echo "$exec_start" | sed -e "s|/usr/local/bin/rtsoak|$RTSOAK|" -e 's/--duration 24h/--duration 3s/' \
	-e "s|/var/lib/rtsoak/|$st/|g" -e "s|/var/lib/prometheus/node-exporter/|$tf/|g" -e 's/%i/test/g')
tmpdir=$(unit_value Environment | sed -n "s|^TMPDIR=/var/lib/rtsoak/|$st/|p")
caps=$(unit_value CapabilityBoundingSet | tr ' ' '\n' | sed -n 's/^CAP_\(.*\)/+\L\1/p' | paste -sd,)
diag "ExecStart: $args; TMPDIR=$tmpdir; caps $caps"
if [ -z "$caps" ] || [ -z "$tmpdir" ] || ! grep -q '^ProtectSystem=strict$' "$UNIT"; then
	ok 1 "the unit has CapabilityBoundingSet=, TMPDIR and ProtectSystem=strict"
	skip "no sandbox to run in"
	done_testing
fi
unshare -m --propagation private env ST="$st" TF="$tf" CAPS="$caps" TMPDIR="$tmpdir" \
	bash -c '
	set -e
	mount --bind "$ST" "$ST"
	mount --bind "$TF" "$TF"
	mount -t tmpfs -o mode=0755 tmpfs /run && mkdir -m 0700 /run/rtsoak
	mount -t tmpfs -o mode=0755 tmpfs /home
	mount -o remount,bind,ro /
	mount -o remount,bind,ro /sys
	mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys
	for m in $(awk '"'"'$3 ~ /^cgroup/ {print $2}'"'"' /proc/mounts); do
		mount -o remount,bind,ro "$m"
	done
	if touch /etc/rtsoak-sandbox-test 2>/dev/null; then
		rm -f /etc/rtsoak-sandbox-test
		echo "the sandbox root is writable" >&2
		exit 99
	fi
	exec setpriv --bounding-set=-all,$CAPS --inh-caps=-all --no-new-privs -- '"$args"'
	' >run.out 2>&1
rc=$?
sed 's/^/# run: /' run.out | head -n 30
[ $rc -eq 0 ] && [ "$(jget "$st/test.json" 'r["run"]["status"]')" = complete ] &&
	validate "$st/test.json"
ok $? "a soak with the unit's ExecStart runs in its sandbox: exit $rc, report complete and valid"
w=$(jget "$st/test.json" '[w for w in r["run"]["warnings"] if "ermission" in w or "ead-only" in w or "not permitted" in w]')
[ "$w" = "[]" ] && ! grep -qi "permission denied\|read-only\|not permitted" run.out
ok $? "nothing it does was refused by the sandbox ($w)"
done_testing
