#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Help and usage errors (issue 19): `rtsoak help CMD` and `rtsoak CMD --help`
# print the same usage, naming every option of the table that parses the
# command (checked against `rtsoak __complete-spec`, the tables' own data, not
# a copy), and exit 0; an unknown command or option exits 2 with one line, a
# near miss with "did you mean"; cyclictest's -h1000 habit exits 2 with one
# line instead of printing the help as if the run had been done.
. "$(dirname "$0")/lib.sh"

cd "$WORK" || exit 1
"$RTSOAK" __complete-spec >spec || {
	echo "1..1"
	ok 1 "rtsoak __complete-spec exits 0"
	exit 1
}
mapfile -t cmds < <(sed -n 's/^cmd //p' spec)
# Per command: help CMD, CMD --help (exit 0, same text), every option named,
# a near miss of one of its options; then the general cases below.
plan $((${#cmds[@]} * 4 + 15))

# one_line ERR: exactly one line, starting with "rtsoak:".
one_line() { [ "$(printf '%s\n' "$1" | grep -c .)" -eq 1 ] && [[ $1 == rtsoak:* ]]; }

for c in "${cmds[@]}"; do
	"$RTSOAK" help "$c" >help.out 2>help.err
	rc=$?
	[ $rc -eq 0 ] && [ ! -s help.err ] && grep -q "usage: rtsoak" help.out
	ok $? "help $c: exit 0 ($rc), a usage on stdout, nothing on stderr"
	"$RTSOAK" "$c" --help >dash.out 2>dash.err
	rc=$?
	[ $rc -eq 0 ] && same_bytes help.out dash.out
	ok $? "$c --help: exit 0 ($rc) and the same text as help $c"
	missing=
	while read -r flag; do
		grep -q -e "$flag\\b" help.out || missing="$missing $flag"
	done < <(awk -v c="$c" '$1 == "opt" && $2 == c { print $3 }' spec)
	[ -z "$missing" ]
	ok $? "help $c names every option of its table (missing:${missing:- none})"
	# A near miss: the first option longer than 3 letters but --help, two
	# letters swapped ("--duration" -> "--udration").
	name=$(awk -v c="$c" '$1 == "opt" && $2 == c && $3 ~ /^--/ && $3 != "--help" &&
		length($3) > 5 { print substr($3, 3); exit }' spec)
	[ -n "$name" ] || name=help
	typo=--${name:1:1}${name:0:1}${name:2}
	err=$("$RTSOAK" "$c" "$typo" 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 2 ] && one_line "$err" && [[ $err == *"did you mean --$name?"* ]]
	ok $? "$c $typo: exit 2 ($rc), one line: did you mean --$name? ($err)"
done

# The general help lists every command.
"$RTSOAK" help >all.out 2>&1
rc=$?
missing=
for c in "${cmds[@]}"; do grep -q "^  $c " all.out || missing="$missing $c"; done
[ $rc -eq 0 ] && [ -z "$missing" ]
ok $? "help: exit 0 ($rc), every command listed (missing:${missing:- none})"
"$RTSOAK" --help >dash.out 2>&1 && same_bytes all.out dash.out
ok $? "--help is help"
# The hidden data command is no command to list.
! grep -q __complete all.out
ok $? "help does not list __complete-spec"

# Unknown commands: a near miss gets its hint, anything else the list.
err=$("$RTSOAK" rnu 2>&1 >/dev/null)
rc=$?
[ $rc -eq 2 ] && one_line "$err" && [[ $err == *"unknown command 'rnu' (did you mean run?)"* ]]
ok $? "rnu: exit 2 ($rc), one line, did you mean run? ($err)"
err=$("$RTSOAK" frobnicate 2>&1 >/dev/null)
rc=$?
[ $rc -eq 2 ] && one_line "$err" && [[ $err == *"unknown command"* && $err == *"commands: run, ab"* ]] &&
	[[ $err != *"did you mean"* ]]
ok $? "frobnicate: exit 2 ($rc), one line listing the commands, no guess ($err)"
err=$("$RTSOAK" help reprot 2>&1 >/dev/null)
rc=$?
[ $rc -eq 2 ] && one_line "$err" && [[ $err == *"did you mean report?"* ]]
ok $? "help reprot: exit 2 ($rc), one line, did you mean report? ($err)"
err=$("$RTSOAK" help run extra 2>&1 >/dev/null)
rc=$?
[ $rc -eq 2 ] && one_line "$err" && [[ $err == *"unexpected argument 'extra'"* ]]
ok $? "help run extra: exit 2 ($rc), one line ($err)"

# Unknown options: the issue's example, and a far miss (no guess).
err=$("$RTSOAK" run --duraton 5s 2>&1 >/dev/null)
rc=$?
[ $rc -eq 2 ] && one_line "$err" && [[ $err == *"unknown option '--duraton' (did you mean --duration?)"* ]]
ok $? "run --duraton: exit 2 ($rc), one line, did you mean --duration? ($err)"
err=$("$RTSOAK" --duratoin=5s 2>&1 >/dev/null)
rc=$?
[ $rc -eq 2 ] && one_line "$err" && [[ $err == *"did you mean --duration?"* ]]
ok $? "--duratoin=5s (no subcommand): exit 2 ($rc), did you mean --duration? ($err)"
err=$("$RTSOAK" run --frobnicate 2>&1 >/dev/null)
rc=$?
[ $rc -eq 2 ] && one_line "$err" && [[ $err == *"unknown option '--frobnicate'"* && $err != *"did you mean"* ]]
ok $? "run --frobnicate: exit 2 ($rc), one line, no guess ($err)"

# cyclictest's -h US (histogram): rtsoak's -h is --help and takes no value.
for args in "-h1000" "-h 1000" "run -h1000" "-qh400"; do
	# shellcheck disable=SC2086
	err=$("$RTSOAK" $args --duration 60s 2>&1 >out)
	rc=$?
	[ $rc -eq 2 ] && one_line "$err" && [ ! -s out ] && [[ $err == *"help run"* ]] &&
		[[ $err == *histogram* ]] && [[ $err != *"rtsoak cyclictest"* ]] &&
		[ -z "$(ls ./*.json 2>/dev/null)" ]
	ok $? "$args: exit 2 ($rc), one line pointing to rtsoak help run, no help, no report ($err)"
done
rm -f out
"$RTSOAK" -h >out 2>&1 && grep -q "usage: rtsoak" out
ok $? "-h alone: still the help, exit 0"
done_testing
