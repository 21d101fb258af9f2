# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh: what the bench scripts share.  Sourced after the script sets ME
# (its name for messages).

die() { echo "$ME: $*" >&2; exit 1; }
missing() { echo "$ME: $*" >&2; exit 2; }

# find_rtsoak: $RTSOAK, else ./rtsoak (run from the build directory), else
# the build next to the script; exit 2 with a hint when there is none.
find_rtsoak() {
	if [[ -n ${RTSOAK:-} ]]; then
		:
	elif [[ -x ./rtsoak ]]; then
		RTSOAK=./rtsoak
	elif [[ -x "$(dirname "$0")/../rtsoak" ]]; then
		RTSOAK="$(dirname "$0")/../rtsoak"
	else
		missing "no rtsoak binary: build it (make rtsoak) and run from the build directory, or set RTSOAK=/path/to/rtsoak"
	fi
	[[ -x $RTSOAK ]] || missing "RTSOAK=$RTSOAK is not an executable"
}
