#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# packages.sh OUTDIR: the .deb and the .rpm as a user gets them (issue 19).
# The .deb is built by dpkg-buildpackage from a clean git clone of this tree,
# checked by lintian, installed with dpkg, used (--version, a 2 s run, man,
# the bash, zsh and fish completions, the soak unit under systemd-analyze)
# and purged,
# leaving nothing behind; the .rpm is built by rpmbuild -tb from the tarball
# make dist makes in the same clone, and must hold the .deb's files.  TAP on
# stdout; the packages and their build logs stay in OUTDIR.  Root, with
# debhelper, lintian, rpm and the build dependencies installed (.ci/run
# installs them).  Refuses to touch a machine that has rtsoak installed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
out=${1:?usage: packages.sh OUTDIR}
mkdir -p "$out" && out=$(cd "$out" && pwd)

plan 19

version=$(sed -n 's/^AC_INIT(\[rtsoak\], \[\([^]]*\)\].*/\1/p' "$src/configure.ac")
diag "configure.ac's version: ${version:-none}"

# A clean tree: what is committed, as a fresh clone has it.
clone=$out/rtsoak
rm -rf "$clone" "$out"/rtsoak_* "$out"/rtsoak-* "$out/rpm"
git clone -q "$src" "$clone"
rev=$(git -C "$clone" describe --always --dirty --abbrev=12)

# ------------------------------------------------------------------ .deb --
cl_version=$(cd "$clone" && dpkg-parsechangelog -S Version)
[ -n "$version" ] && [ "$cl_version" = "$version" ]
ok $? "version_one_place: debian/changelog says $cl_version, configure.ac $version"

(cd "$clone" && DEB_BUILD_OPTIONS="parallel=$(nproc)" dpkg-buildpackage -us -uc -b) \
	>"$out/deb-build.log" 2>&1
rc=$?
deb=$out/rtsoak_${version}_amd64.deb
[ "$rc" -eq 0 ] && [ -f "$deb" ]
ok $? "deb_builds: dpkg-buildpackage -b made $(basename "$deb") (log: $out/deb-build.log)"
[ "$rc" -eq 0 ] || tail -20 "$out/deb-build.log" | sed 's/^/# /'

# lintian clean: no error and no warning (an override would need a reason
# in debian/rtsoak.lintian-overrides).
lintian --allow-root --fail-on error,warning "$out/rtsoak_${version}_amd64.changes" \
	>"$out/lintian.log" 2>&1
rc=$?
sed 's/^/# lintian: /' "$out/lintian.log"
ok $rc "deb_lintian_clean: lintian finds no error or warning"

# Installed: what a user runs after apt install ./rtsoak_*.deb.
if dpkg-query -W -f='${Status}' rtsoak 2>/dev/null | grep -q "installed"; then
	ok 1 "deb_installs: rtsoak is already installed here; not replacing it"
	installed=no
else
	dpkg -i "$deb" >"$out/install.log" 2>&1
	rc=$?
	ok $rc "deb_installs: dpkg -i"
	[ "$rc" -eq 0 ] && installed=yes || installed=no
fi
if [ "$installed" = yes ]; then
	# Its files (not the directories it shares with the system).
	dpkg -L rtsoak | while read -r f; do [ -d "$f" ] || echo "$f"; done >"$WORK/files"
	! grep -q cyclictest "$WORK/files" && grep -qx /usr/bin/rtsoak "$WORK/files"
	ok $? "deb_no_cyclictest: /usr/bin/rtsoak and no cyclictest symlink (rtsoak(1): link it by hand)"
	got=$(/usr/bin/rtsoak --version)
	[ "$got" = "rtsoak $version (git $rev)" ]
	ok $? "installed_version: '$got' is configure.ac's version and the clone's revision $rev"

	/usr/bin/rtsoak run --duration 2s -q -o "$WORK/x.json" >"$WORK/run.out" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] && "$PYTHON3" "$src/tests/validate_report.py" "$SCHEMA" "$WORK/x.json" >/dev/null
	ok $? "installed_runs: rtsoak run --duration 2s -q -o x.json exits 0 with a schema-valid report (exit $rc)"

	manpath=$(man -w rtsoak 2>&1)
	[ "$manpath" = /usr/share/man/man1/rtsoak.1.gz ]
	ok $? "installed_man: man -w rtsoak is $manpath"

	# bash-completion loads a command's completion on first use from the
	# file named after it.
	comp=$(bash -c '. /usr/share/bash-completion/bash_completion && _completion_loader rtsoak;
		COMP_WORDS=(rtsoak rep); COMP_CWORD=1; COMP_LINE="rtsoak rep"; COMP_POINT=10;
		$(complete -p rtsoak | sed "s/.*-F \([^ ]*\) .*/\1/") rtsoak rep rtsoak; echo "${COMPREPLY[*]}"' 2>&1)
	[ "$comp" = report ]
	ok $? "installed_completion: bash-completion loads it and completes 'rtsoak rep' to '$comp'"

	# zsh's compinit finds _rtsoak in the default $fpath (Debian's zsh has
	# /usr/share/zsh/vendor-completions there) and binds it to rtsoak.
	grep -qx /usr/share/zsh/vendor-completions/_rtsoak "$WORK/files" &&
		comp=$(zsh -fc 'autoload -Uz compinit && compinit -u -D && print -r -- ${_comps[rtsoak]}' 2>&1) &&
		[ "$comp" = _rtsoak ]
	ok $? "installed_zsh_completion: /usr/share/zsh/vendor-completions/_rtsoak, compinit binds rtsoak to '${comp:-nothing}'"

	# fish loads a command's completion from vendor_completions.d on first use.
	grep -qx /usr/share/fish/vendor_completions.d/rtsoak.fish "$WORK/files" &&
		comp=$(HOME=$WORK fish -c 'complete -C "rtsoak rep"' 2>&1 | cut -f1) &&
		[ "$comp" = report ]
	ok $? "installed_fish_completion: /usr/share/fish/vendor_completions.d/rtsoak.fish completes 'rtsoak rep' to '$comp'"

	unit=$(dpkg -L rtsoak | grep '/rtsoak-soak@\.service$')
	grep -q "^ExecStart=/usr/bin/rtsoak " "$unit" &&
		systemd-analyze verify "${unit%@.service}@baseline.service" >"$WORK/verify" 2>&1
	rc=$?
	sed 's/^/# systemd-analyze: /' "$WORK/verify"
	ok $rc "installed_unit: $unit runs /usr/bin/rtsoak and systemd-analyze verify accepts an instance"

	dpkg --purge rtsoak >"$out/purge.log" 2>&1
	rc=$?
	left=
	while read -r f; do
		if [ -e "$f" ] || [ -L "$f" ]; then left="$left $f"; fi
	done <"$WORK/files"
	[ -e /usr/share/doc/rtsoak ] && left="$left /usr/share/doc/rtsoak"
	! dpkg-query -W -f='${Status}' rtsoak 2>/dev/null | grep -q "installed" &&
		[ "$rc" -eq 0 ] && [ -z "$left" ]
	ok $? "deb_purges: dpkg --purge leaves none of its $(wc -l <"$WORK/files") files${left:+ (left:$left)}"
else
	for c in deb_no_cyclictest installed_version installed_runs installed_man installed_completion \
		installed_zsh_completion installed_fish_completion \
		installed_unit deb_purges; do
		ok 1 "$c: not installed"
	done
fi

# ------------------------------------------------------------------ .rpm --
# The tarball make dist makes, from the same clean clone (then cleaned).
git -C "$clone" clean -fdxq
mkdir -p "$out/dist"
(cd "$clone" && autoreconf -fi) >"$out/dist.log" 2>&1 &&
	(cd "$out/dist" && "$clone/configure" -q && make -s dist) >>"$out/dist.log" 2>&1
tarball=$out/dist/rtsoak-$version.tar.gz
[ -f "$tarball" ] && tar -tzf "$tarball" | grep -qx "rtsoak-$version/rtsoak.spec"
ok $? "dist_has_spec: make dist's tarball carries rtsoak.spec (made by configure)"

# Debian's rpm has no RPM database of build dependencies (--nodeps: the deb's
# build installed them) and no find-debuginfo (no debug package).
rpmbuild -tb "$tarball" --nodeps --define "_topdir $out/rpm" --define "debug_package %{nil}" \
	>"$out/rpm-build.log" 2>&1
rc=$?
rpm=$(find "$out/rpm/RPMS" -name "rtsoak-$version-1.*.rpm" 2>/dev/null | head -1)
[ "$rc" -eq 0 ] && [ -n "$rpm" ]
ok $? "rpm_builds: rpmbuild -tb made ${rpm:+$(basename "$rpm")} (log: $out/rpm-build.log)"
[ "$rc" -eq 0 ] || tail -20 "$out/rpm-build.log" | sed 's/^/# /'
grep -q "^# PASS: *[1-9]" "$out/rpm-build.log" && grep -q "^# FAIL: *0" "$out/rpm-build.log"
ok $? "rpm_checks: %check ran the unit tests and none failed"

[ -n "$rpm" ] && [ "$(rpm -qp --qf '%{VERSION}' "$rpm" 2>/dev/null)" = "$version" ]
ok $? "rpm_version: the .rpm's version is configure.ac's"

# The licence: GPL-2.0-or-later, its text as the .rpm's licence file
# (in rtsoak/, or rtsoak-VERSION/ where rpm is older, as Debian's).
[ -n "$rpm" ] && [ "$(rpm -qp --qf '%{LICENSE}' "$rpm" 2>/dev/null)" = GPL-2.0-or-later ] &&
	rpm -qpL "$rpm" 2>/dev/null | grep -Eqx '/usr/share/licenses/rtsoak(-[0-9.]+)?/COPYING'
ok $? "rpm_license: License GPL-2.0-or-later, COPYING as its %license file"

# The same files: the .deb's compressed docs and man page, its changelog and
# copyright (Debian policy), the .rpm's licence file (%license COPYING),
# /lib for /usr/lib (bookworm's unit directory) and zsh's vendor-completions
# for site-functions (each distribution's directory for a package's zsh
# completions) aside.
norm() { sed -e 's/\.gz$//' -e 's|^/lib/|/usr/lib/|' -e 's|/zsh/vendor-completions/|/zsh/site-functions/|' | grep -v -e '^/usr/share/doc/rtsoak/changelog$' \
	-e '^/usr/share/doc/rtsoak/copyright$' -e '^/usr/share/licenses/rtsoak' \
	-e '^/usr/lib/\.build-id' | sort -u; }
dpkg-deb -c "$deb" 2>/dev/null | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' | norm >"$WORK/deb.files"
rpm -qlp "$rpm" 2>/dev/null | while read -r f; do
	[ "$f" = /usr/share/doc/rtsoak ] || echo "$f"
done | norm >"$WORK/rpm.files"
diff "$WORK/deb.files" "$WORK/rpm.files" >"$WORK/files.diff"
rc=$?
[ -s "$WORK/deb.files" ] || rc=1
sed 's/^/# /' "$WORK/files.diff"
ok $rc "rpm_same_files: the .rpm holds the .deb's $(wc -l <"$WORK/deb.files") files"
exit $((tap_failed > 0))
