#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The fish completion (issue 27): the built rtsoak.fish, sourced by a fish
# without a config, answers `complete -C LINE` (fish's own completion of
# LINE, as TAB would) with what `rtsoak __complete-spec` says, as
# tests/integration/completion.sh checks for bash.
. "$(dirname "$0")/lib.sh"

: "${RTSOAK_FISH:=$(dirname "$RTSOAK")/rtsoak.fish}"
command -v fish >/dev/null || skip_all "fish is not installed"

plan 10
cd "$WORK" || exit 1
# make builds rtsoak.fish next to rtsoak (noinst_DATA): missing is a failure.
[ -r "$RTSOAK_FISH" ]
ok $? "$RTSOAK_FISH is built"
"$RTSOAK" __complete-spec >spec
mkdir out && touch out/alpha.json out/alpine.json out/beta.txt "out/gamma ray.txt"

# check NAME LINE EXPECTED-FILE: the candidates (descriptions cut) are
# EXPECTED-FILE's lines.
check() {
	fish --no-config -c 'source $argv[1]; and complete -C $argv[2]' "$RTSOAK_FISH" "$2" 2>&1 |
		cut -f1 | sort -u >got
	sort -u "$3" | grep . >want
	same_bytes want got
	ok $? "$1 ('$2': $(tr '\n' ' ' <got))"
}

sed -n 's/^cmd //p' spec >want.cmds
check "subcommands after rtsoak" "rtsoak " want.cmds
sed -n 's/^cmd \(re\)/\1/p' spec >want.re
check "subcommands after rtsoak re" "rtsoak re" want.re
awk '$1 == "opt" && $2 == "run" && $3 ~ /^--d/ { print $3 }' spec >want.opts
[ -s want.opts ] || echo "--no-such-option-in-the-spec" >want.opts
check "options after rtsoak run --d" "rtsoak run --d" want.opts
check "run's options without the word run" "rtsoak --d" want.opts
sed -n 's/^load //p' spec >want.loads
check "load names after --loads" "rtsoak run --loads " want.loads
awk '$1 == "loadopt" && $2 == "cpu" { print "disk,cpu:" $3 "=" }' spec >want.cpu
check "the second load's options after --loads disk,cpu:" "rtsoak run --loads disk,cpu:" want.cpu
sed -n 's/^probe //p' spec >want.probes
check "probe names after --probes" "rtsoak run --probes " want.probes
printf '%s\n' out/alpha.json out/alpine.json out/beta.txt "out/gamma ray.txt" >want.files
check "files after -o" "rtsoak run -o out/" want.files
: >want.none
check "nothing for a CPU list" "rtsoak run --cpus " want.none
done_testing
