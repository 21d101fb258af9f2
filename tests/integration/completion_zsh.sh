#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The zsh completion (issue 27): the built rtsoak.zsh, installed as _rtsoak
# in $fpath of an interactive zsh on a pseudo-terminal (zsh/zpty), where
# compinit loads it as a user's zsh does; a line is typed, then TAB.  The
# matches are what every compadd call of the completion system offered
# (a wrapper records them, then lets the builtin add them), each written as
# it reaches the line (ignored prefix, prefixes, the word quoted unless the
# caller quoted it, suffixes); the buffer after TAB is read back by a
# second key.  What it should offer is taken from `rtsoak __complete-spec`,
# as tests/integration/completion.sh does for bash.
. "$(dirname "$0")/lib.sh"

: "${RTSOAK_ZSH:=$(dirname "$RTSOAK")/rtsoak.zsh}"
command -v zsh >/dev/null || skip_all "zsh is not installed"
zsh -fc 'zmodload zsh/zpty' 2>/dev/null || skip_all "zsh has no zsh/zpty module"

plan 14
cd "$WORK" || exit 1
# make builds rtsoak.zsh next to rtsoak (noinst_DATA): missing is a failure.
[ -r "$RTSOAK_ZSH" ] && head -1 "$RTSOAK_ZSH" | grep -qx '#compdef rtsoak'
ok $? "$RTSOAK_ZSH is built and starts with '#compdef rtsoak' (compinit's tag)"
"$RTSOAK" __complete-spec >spec
mkdir fn zdot out && touch out/alpha.json out/alpine.json out/beta.txt "out/gamma ray.txt"
cp "$RTSOAK_ZSH" fn/_rtsoak 2>/dev/null

# The user's zsh: compinit from an fpath that has _rtsoak; the recording
# compadd; TAB bound to complete-word (through a widget that marks the end
# of the completion) and ^X^B to a widget that writes the buffer.
cat >zdot/.zshrc <<'EOF'
fpath=($ZFN $fpath)
autoload -Uz compinit && compinit -u -D
PS1='' RPS1='' LISTMAX=100000
unsetopt beep
compadd() {
	# Its locals are named so as not to hide the arrays a caller names
	# (compadd -a NAME) or the variables _path_files uses.
	local -a __cO __cA __cD
	zparseopts -E O:=__cO A:=__cA D:=__cD
	if (( $#__cO + $#__cA + $#__cD )); then
		# the caller only asks what would match: nothing is offered
		builtin compadd "$@"
		return
	fi
	local -a __cm __cP __cp __cS __cs __cQ
	zparseopts -E P:=__cP p:=__cp S:=__cS s:=__cs Q=__cQ
	builtin compadd -O __cm "$@"
	local __cw
	for __cw in "${__cm[@]}"; do
		(( $#__cQ )) || __cw=${(q)__cw}
		print -r -- "match:$IPREFIX${__cP[2]}${__cp[2]}$__cw${__cs[2]}${__cS[2]}" >>$ZOUT
	done
	builtin compadd "$@"
}
_capture_main() { _main_complete; print -r -- completed >>$ZOUT; }
zle -C capture complete-word _capture_main
bindkey '^I' capture
_dump_buffer() { print -r -- "buffer:$BUFFER" >>$ZOUT; }
zle -N _dump_buffer
bindkey '^X^B' _dump_buffer
EOF
# drive.zsh LINE: types LINE, TAB and ^X^B into `zsh -i` on a pty and waits
# (at most 20 s: a hang, not a speed bound) for the buffer to be written.
cat >drive.zsh <<'EOF'
zmodload zsh/zpty || exit 2
: >|$ZOUT
zpty z zsh -d -i
zpty -w -n z "$1"$'\t\C-x\C-b'
integer i
for ((i = 0; i < 200; i++)); do
	grep -q '^buffer:' $ZOUT && break
	sleep 0.1
done
zpty -d z
EOF

# zcomplete LINE [FUNCDIR]: the matches (sorted) in out.matches, the
# buffer after TAB in out.buffer; 1 when the completion did not finish.
zcomplete() {
	ZOUT=$WORK/zout ZFN=${2:-$WORK/fn} ZDOTDIR=$WORK/zdot zsh -f drive.zsh "$1" </dev/null
	sed -n 's/^match://p' zout | sort -u >out.matches
	sed -n 's/^buffer://p' zout >out.buffer
	grep -qx completed zout && [ -s out.buffer ]
}

# check NAME LINE EXPECTED-FILE: the matches are EXPECTED-FILE's lines.
check() {
	zcomplete "$2"
	local rc=$?
	sort -u "$3" | grep . >want
	same_bytes want out.matches && [ $rc -eq 0 ]
	ok $? "$1 ('$2': $(tr '\n' ' ' <out.matches))"
}

# check_buffer NAME LINE EXPECTED-BUFFER: what TAB leaves on the line.
check_buffer() {
	zcomplete "$2"
	local rc=$? got
	got=$(cat out.buffer)
	[ $rc -eq 0 ] && [ "$got" = "$3" ]
	ok $? "$1 ('$2' + TAB: '$got', want '$3')"
}

sed -n 's/^cmd //p' spec >want.cmds
check "subcommands after rtsoak" "rtsoak " want.cmds
check_buffer "a unique subcommand is completed on the line, a space after it" "rtsoak ru" "rtsoak run "
check "subcommands after rtsoak help" "rtsoak help " want.cmds

awk '$1 == "opt" && $2 == "run" && $3 ~ /^--d/ { print $3 }' spec >want.opts
[ -s want.opts ] || echo "--no-such-option-in-the-spec" >want.opts
check "options after rtsoak run --d" "rtsoak run --d" want.opts
check "run's options without the word run" "rtsoak --d" want.opts
awk '$1 == "opt" && $2 == "report" && $3 ~ /^--/ { print $3 }' spec >want.ropts
check "report's own options after rtsoak report --" "rtsoak report --" want.ropts

sed -n 's/^load //p' spec >want.loads
check "load names after --loads" "rtsoak run --loads " want.loads
awk '$1 == "loadopt" && $2 == "cpu" { print "disk,cpu:" $3 "=" }' spec >want.cpu
check "the second load's options after --loads disk,cpu:" "rtsoak run --loads disk,cpu:" want.cpu
sed -n 's/^probe //p' spec >want.probes
check "probe names after --probes" "rtsoak run --probes " want.probes

printf '%s\n' 'out/alpha.json' 'out/alpine.json' 'out/beta.txt' 'out/gamma\ ray.txt' >want.files
check "files after -o, a space in a name quoted" "rtsoak run -o out/" want.files
printf '%s\n' --output=out/alpha.json --output=out/alpine.json >want.al
check "files after --output=" "rtsoak run --output=out/al" want.al

awk '$1 == "opt" && $2 == "report" && $3 == "--color" { for (i = 5; i <= NF; i++) print $i }' \
	spec >want.color
check "report --color's words" "rtsoak report --color " want.color

# Names reach the line quoted for zsh and are looked up as text, never as a
# pattern: a spec with a load named 'we*ird$x' (and its option 'depth')
# completes it as we\*ird\$x, and a typed name 'c*' (in quotes, as zsh
# hands it to the function) is no load: as a pattern it would match cpu.
mkdir fn2
sed -e 's/^load cpu$/load we*ird$x\nloadopt we*ird$x depth\n&/' "$RTSOAK_ZSH" >fn2/_rtsoak
zcomplete 'rtsoak run --loads we' "$WORK/fn2"
b1=$(cat out.buffer)
zcomplete "rtsoak run --loads 'c*:" "$WORK/fn2"
m2=$(tr '\n' ' ' <out.matches)
[ "$b1" = 'rtsoak run --loads we\*ird\$x' ] && [ -z "$m2" ]
ok $? "a special name is quoted on the line ('$b1') and a typed 'c*:' offers nothing ('$m2')"
done_testing
