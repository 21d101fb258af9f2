#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# behaviour_corpus.sh OUTDIR [EXTRA.json...]: write what rtsoak prints for a
# fixed set of inputs into OUTDIR, one file per command, so that two builds
# can be compared with `diff -r` (issue 13: "behaviour does not change").
# Not a test: run it with the build before a change and with the build after,
# then diff the two directories.
#
#   RTSOAK=/tmp/build-before/rtsoak tests/behaviour_corpus.sh /tmp/corpus-before
#   RTSOAK=/tmp/build-after/rtsoak tests/behaviour_corpus.sh /tmp/corpus-after
#   diff -r /tmp/corpus-before /tmp/corpus-after
#
# Inputs: the checked-in reports of tests/data (and any EXTRA.json given, e.g.
# a fresh run's report made once and kept), rendered in every view; compare
# of fixture pairs; `loads`, `probes`, `--help` and the subcommands' usage;
# and every bad-input case of tests/integration/cli_errors.sh and
# safety_cli.sh (their `cases` arrays, read from the scripts), with exit
# status, stderr and stdout.  `sysinfo` and successful runs are left out: they
# depend on the machine and the moment.
#
# Normalised: nothing.  The HTML and JSON views print no generation time
# (the report's own start time comes from the file), so the outputs are
# compared as they are.  Each bad-input case runs in the same fixed empty
# directory, so paths in messages do not vary either.
set -u
out=${1:?usage: behaviour_corpus.sh OUTDIR [EXTRA.json...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
data=$here/data
RTSOAK=${RTSOAK:?set RTSOAK to the rtsoak binary}
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)

# run NAME ARGS...: stdout to NAME.out, stderr to NAME.err, status to NAME.rc.
run() {
	local name=$1
	shift
	"$RTSOAK" "$@" >"$out/$name.out" 2>"$out/$name.err"
	echo $? >"$out/$name.rc"
}

inputs=("$data"/report-small.json "$data"/cyclictest-*.json "$@")
for f in "${inputs[@]}"; do
	b=report.$(basename "$f" .json)
	run "$b.text" report "$f" --text --color never
	run "$b.text-color" report "$f" --text --color always
	run "$b.default" report "$f"
	for v in html json prom histogram-text; do
		run "$b.$v" report "$f" --$v -
	done
done

pairs=(
	"report-small report-small"
	"report-small cyclictest-h"
	"cyclictest-h report-small"
	"cyclictest-h cyclictest-noh"
	"cyclictest-noh cyclictest-nocolon"
)
for p in "${pairs[@]}"; do
	read -r a b <<<"$p"
	name=compare.$a.$b
	run "$name.text" compare "$data/$a.json" "$data/$b.json" --color never
	run "$name.text-color" compare "$data/$a.json" "$data/$b.json" --color always
	run "$name.json" compare "$data/$a.json" "$data/$b.json" --json -
	run "$name.html" compare "$data/$a.json" "$data/$b.json" --html -
	run "$name.fail-if" compare "$data/$a.json" "$data/$b.json" --color never \
		--fail-if 'p99>+0%' --fail-if 'max>+1us'
done

run loads loads
run probes probes
run help --help
run help-cmd help
for c in run ab report compare restore loads probes reflect sysinfo; do
	run "usage.$c" "$c" --help
done

# The bad-input cases of the two CLI tests, as their scripts list them.
work=/tmp/rtsoak-corpus-work
n=0
for t in cli_errors safety_cli; do
	cases=()
	eval "$(sed -n '/^cases=(/,/^)/p' "$here/integration/$t.sh")"
	for c in "${cases[@]}"; do
		IFS='|' read -r _ args _ <<<"$c"
		rm -rf "$work" && mkdir -p "$work" || exit 1
		n=$((n + 1))
		name=$(printf 'error.%s.%02d' "$t" "$n")
		printf '%s\n' "$args" >"$out/$name.args"
		extra=
		[ "$t" = cli_errors ] && case "$args" in --duration=* | --cpus) ;; *) extra=--duration=1s ;; esac
		# shellcheck disable=SC2086
		(cd "$work" && set -f && run "$name" $args $extra)
		ls -A "$work" >"$out/$name.files"
	done
done
rm -rf "$work"
