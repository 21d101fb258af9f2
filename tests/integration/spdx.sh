#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every file the project wrote carries its licence (README.md, "Licence"):
# an SPDX-License-Identifier line within its first three lines.  The files
# checked are found by kind, not listed, so that a new source, script,
# test or build file without the line fails here.  Data (JSON schemas and
# fixtures, captured events, golden files, fuzz inputs) and generated files
# (docs/checks.md, debian/changelog) are covered by README's statement.
. "$(dirname "$0")/lib.sh"

cd "$top_srcdir" || exit 1
tag='SPDX-License-Identifier: GPL-2.0-or-later'

# A tarball has the same folders as the git tree; a build inside the
# source tree (./configure && make) leaves only objects, logs and
# binaries there, which the patterns below do not take.
files=$(find src loads reports tests bench contrib man docs debian .ci \
	\( -path tests/data -o -path tests/fuzz/corpus -o -path tests/fuzz/regress \
	-o -name __pycache__ \) -prune -o -type f \
	\( -name '*.[ch]' -o -name '*.sh' -o -name '*.py' -o -name '*.in' -o -name '*.md' \
	-o -name '*.1' -o -name '*.service' -o -name '*.yaml' -o -name '*.supp' \
	-o -name '*.dict' -o -name '*.ignore' -o -path debian/rules -o -path debian/control \
	-o -path .ci/run \) -print 2>/dev/null | grep -v '^docs/checks\.md$' | sort)
files="$files configure.ac Makefile.am rtsoak.spec.in README.md .clang-format"

plan 3
n=$(echo "$files" | wc -w)
[ "$n" -ge 250 ]
ok $? "found $n files the project wrote (at least 250: the search still reaches every folder)"

missing=
for f in $files; do
	head -3 "$f" | grep -qF "$tag" || missing="$missing $f"
done
[ -n "$missing" ] && diag "no '$tag' in the first 3 lines of:$missing"
[ -z "$missing" ]
ok $? "every one of the $n files starts with the SPDX line"

# The licence text itself, whose name the SPDX lines give.
grep -q "GNU GENERAL PUBLIC LICENSE" COPYING && grep -q "Version 2, June 1991" COPYING
ok $? "COPYING holds the GPL-2.0 text"
done_testing
