#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad input: exit 2, one line naming the option, and no report file.
. "$(dirname "$0")/lib.sh"

cases=(
	"unknown option|--frobnicate|unknown option"
	"unknown subcommand|frobnicate|unknown command"
	"cpus bad syntax|--cpus=a|--cpus"
	"cpus reversed range|--cpus=3-1|reversed range"
	"cpus empty|--cpus=|--cpus"
	"cpus not online|--cpus=4000|is not online"
	"cpus trailing comma|--cpus=0,|--cpus"
	"interval malformed|--interval=abc|--interval"
	"interval zero|--interval=0|--interval"
	"interval negative|--interval=-1ms|--interval"
	"interval overflowing|--interval=99999999999999999999s|--interval"
	"interval unknown unit|--interval=5x|--interval"
	"duration malformed|--duration=1y|--duration"
	"duration zero|--duration=0|--duration"
	"duration negative|--duration=-5s|--duration"
	"duration overflowing|--duration=999999999999d|--duration"
	"priority zero|--priority=0|--priority"
	"priority too high|--priority=100|--priority"
	"priority not a number|--priority=high|--priority"
	"output dir missing|--output=/nonexistent-dir/r.json|--output"
	"output dir not writable|--output=/proc/r.json|--output"
	"record matches nothing|--record=/sys/nonexistent-rtsoak-*|--record"
	"record outside sys and proc|--record=/etc/hostname|--record"
	"probe unknown|--probes=nosuch|--probes"
	"loops zero|--loops=0|--loops"
	"option missing value|--cpus|--cpus"
	"stray argument|run extra|unexpected argument"
	"probes trailing comma|--probes=timer,|--probes"
	"loops with duration|--loops=5|--duration and --loops"
	"record private file|--record=/proc/self/environ|--record"
)

plan $((${#cases[@]} * 3))
cd "$WORK" || exit 1
for c in "${cases[@]}"; do
	IFS='|' read -r name arg want <<<"$c"
	rm -f ./*.json
	# A short duration so that a check that wrongly passes does not hang
	# the suite; left out where the case is about the duration itself or
	# about an option missing its value (which must come last).
	extra=--duration=1s
	case "$arg" in --duration=* | --cpus) extra= ;; esac
	# shellcheck disable=SC2086
	err=$("$RTSOAK" $arg $extra 2>&1 >/dev/null)
	rc=$?
	ok $((rc != 2)) "$name: exit 2 (got $rc)"
	lines=$(printf '%s\n' "$err" | grep -c .)
	echo "$err" | grep -q -- "$want" && [ "$lines" -eq 1 ] && [[ "$err" == rtsoak:* ]]
	ok $? "$name: one line naming '$want' ($err)"
	[ -z "$(ls -A "$WORK")" ]
	ok $? "$name: no report file left"
done
done_testing
