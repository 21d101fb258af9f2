#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The C sources follow .clang-format (skipped where clang-format is missing).
. "$(dirname "$0")/lib.sh"
: "${CLANG_FORMAT:=$(command -v clang-format)}"
[ -n "$CLANG_FORMAT" ] || skip_all "clang-format is not installed (apt-get install clang-format)"

cd "$top_srcdir" || exit 1
files=$(ls src/*.[ch] src/*/*.[ch] loads/*.[ch] reports/*.[ch] tests/unit/*.[ch] tests/fuzz/*.[ch] bench/*.c bench/bpf/*.c)
plan 1
out=$("$CLANG_FORMAT" --dry-run --Werror $files 2>&1)
rc=$?
[ $rc -ne 0 ] && echo "$out" | head -20 | sed 's/^/# /'
ok $rc "clang-format --dry-run --Werror on $(echo "$files" | wc -w) files"
done_testing
