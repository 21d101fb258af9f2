#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The bash completion (issue 19): the built rtsoak.bash, sourced in a fresh
# bash, completes subcommands, options, load and probe names and their
# options, option values and files.  What it should offer is taken from
# `rtsoak __complete-spec` (the option tables and the registries), so the
# test checks that the script follows the data, and the data the code.
. "$(dirname "$0")/lib.sh"

: "${RTSOAK_BASH:=$(dirname "$RTSOAK")/rtsoak.bash}"
[ -r "$RTSOAK_BASH" ] || skip_all "no $RTSOAK_BASH (built by make next to rtsoak)"

plan 14
cd "$WORK" || exit 1
"$RTSOAK" __complete-spec >spec
mkdir out && touch out/alpha.json out/alpine.json out/beta.txt "out/gamma ray.txt"
# bash's default word break characters, ':' and '=' included.
BREAKS=$' \t\n"\x27><=;|&(:'

# complete LINE [WORDBREAKS]: what _rtsoak offers with the cursor at the end
# of LINE, sorted, one per line.  COMP_WORDS/COMP_CWORD as bash would set
# them (the script reads COMP_LINE and COMP_POINT).  Default word breaks:
# bash's own, ':' and '=' included.
complete_line() {
	local breaks=${2-$BREAKS}
	bash -c '
		. "$1" || exit 1
		COMP_LINE=$2 COMP_POINT=${#2} COMP_WORDBREAKS=$3
		read -ra COMP_WORDS <<<"$2"
		[[ $2 == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_rtsoak
		printf "%s\n" "${COMPREPLY[@]}"' _ "$RTSOAK_BASH" "$1" "$breaks" | grep . | sort
}

# check NAME LINE EXPECTED-FILE [WORDBREAKS]
check() {
	complete_line "$2" "${4-$BREAKS}" >got
	sort "$3" | grep . >want
	same_bytes want got
	ok $? "$1 ('$2': $(tr '\n' ' ' <got))"
}

sed -n 's/^cmd //p' spec >want.cmds
check "subcommands after rtsoak" "rtsoak " want.cmds
check "subcommands after rtsoak help" "rtsoak help " want.cmds

awk '$1 == "opt" && $2 == "run" && $3 ~ /^--d/ { print $3 }' spec >want.opts
if [ -s want.opts ]; then
	check "options after rtsoak run --d" "rtsoak run --d" want.opts
else
	ok 1 "the spec has run options starting --d"
fi
check "run's options without the word run" "rtsoak --d" want.opts
printf '%s\n' --on-spike --on-spike-interval >want.onspike
check "run's --on-spike options (issue 31)" "rtsoak run --on-" want.onspike
awk '$1 == "opt" && $2 == "report" && $3 ~ /^--/ { print $3 }' spec >want.ropts
check "report's own options after rtsoak report --" "rtsoak report --" want.ropts

sed -n 's/^load //p' spec >want.loads
check "load names after --loads" "rtsoak run --loads " want.loads
awk '$1 == "loadopt" && $2 == "slab" { print $3 "=" }' spec >want.slab
if [ -s want.slab ]; then
	check "slab's options after --loads slab: (bash breaks at ':')" "rtsoak run --loads slab:" \
		want.slab
else
	ok 1 "the spec has slab's options"
fi
sed 's/^/cpu:load=50,slab:/' want.slab >want.slab2
check "the second load's options, whole words when ':' is no break" \
	"rtsoak run --loads cpu:load=50,slab:" want.slab2 $' \t\n'

sed -n 's/^probe //p' spec >want.probes
check "probe names after --probes" "rtsoak run --probes " want.probes

printf '%s\n' out/alpha.json out/alpine.json out/beta.txt "out/gamma ray.txt" >want.files
check "files after -o, a space in a name kept" "rtsoak run -o out/" want.files
printf '%s\n' out/alpha.json out/alpine.json >want.al
check "files after --output= (bash breaks at '=')" "rtsoak run --output=out/al" want.al

awk '$1 == "opt" && $2 == "report" && $3 == "--color" { for (i = 5; i <= NF; i++) print $i }' \
	spec >want.color
check "report --color's words" "rtsoak report --color " want.color
: >want.none
check "nothing for a CPU list" "rtsoak run --cpus " want.none
done_testing
