#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The version has one place, configure.ac's AC_INIT (issue 27): the binary
# and rtsoak.spec are made from it; what is written by hand and names the
# version (the man page's .TH line, NEWS's newest entry, debian/changelog's
# and the spec's newest entries, README's install commands and sample
# output) is checked against it here, so that a release cannot bump one
# and forget another.  tests/packages/packages.sh checks the packages built.
. "$(dirname "$0")/lib.sh"

cd "$top_srcdir" || exit 1
version=$(sed -n 's/^AC_INIT(\[rtsoak\], \[\([^]]*\)\].*/\1/p' configure.ac)
diag "configure.ac's version: ${version:-none}"
plan 6

got=$("$RTSOAK" --version 2>&1)
[ -n "$version" ] && [[ $got == "rtsoak $version" || $got == "rtsoak $version (git "*")" ]]
ok $? "rtsoak --version: '$got' is configure.ac's $version"

th=$(sed -n 's/^\.TH RTSOAK 1 "[^"]*" "\([^"]*\)".*/\1/p' man/rtsoak.1)
[ "$th" = "rtsoak $version" ]
ok $? "man/rtsoak.1's .TH line: '$th'"

# The newest entry comes first in each of these.
news=$(sed -n 's/^rtsoak \([0-9][^ ]*\) ([0-9-]*)$/\1/p' NEWS | head -1)
[ "$news" = "$version" ]
ok $? "NEWS's newest entry: '$news'"

deb=$(sed -n '1s/^rtsoak (\([^)]*\)) .*/\1/p' debian/changelog)
[ "$deb" = "$version" ]
ok $? "debian/changelog's newest entry: '$deb'"

spec=$(sed -n '/^%changelog/,$s/^\* .* - \([^ ]*\)-[0-9]*$/\1/p' rtsoak.spec.in | head -1)
[ "$spec" = "$version" ]
ok $? "rtsoak.spec.in's newest %changelog entry: '$spec'"

# "rtsoak 0.2.0: complete, ...", rtsoak_0.2.0_amd64.deb, rtsoak-0.2.0.tar.gz.
others=$(grep -nEo 'rtsoak[-_ ][0-9]+\.[0-9]+\.[0-9]+' README.md | grep -v "[-_ ]$version\$")
[ -n "$others" ] && diag "README.md names another version: $(echo "$others" | tr '\n' ' ')"
grep -qE "rtsoak[-_ ]$version" README.md && [ -z "$others" ]
ok $? "README.md names the version $version, and no other"
done_testing
