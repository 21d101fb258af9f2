#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The fallback of a run's final report (issue 28, medium 3).  When --output
# cannot be written at the end (here: standard output is /dev/full), the
# report goes to a NEW file in $TMPDIR whose name nobody can predict,
# created O_EXCL and 0600: a FIFO or symlink another user planted at the old
# predictable name $TMPDIR/rtsoak-PID.json is never opened (root's report
# used to go to that user's reader, or the run blocked until a signal and
# then lost the report), and a TMPDIR someone else could empty is passed over
# for /tmp.  The message names the file that holds the report.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema

plan 10
cd "$WORK" || exit 1
T="$WORK/tmp"
mkdir "$T" && chmod 1777 "$T"
RUN="$RTSOAK run --probes timer --cpus 0 --interval 1ms -q --duration 1s -o -"
fallback_of() { sed -n "s|.*the report is in \(.*\) instead.*|\1|p" "$1"; }
# owner, mode and type of a node
node() { stat -c '%u %a %F' "$1"; }

# The old name is rtsoak-PID.json: run rtsoak as the pid of a shell that
# plants it first (exec keeps the pid), as another user would have.
# plant_and_run KIND: KIND fifo or symlink; 60 s bound on the whole run.
plant_and_run() {
	TMPDIR="$T" KIND="$1" RUN="$RUN" timeout 60 bash -c '
		p="$TMPDIR/rtsoak-$$.json"
		case $KIND in
		fifo) mkfifo -m 666 "$p" ;;
		symlink) ln -s "$TMPDIR/stolen.json" "$p" ;;
		esac
		chown -h 65534:65534 "$p"
		echo $$ >planted.pid
		exec $RUN' >/dev/full 2>err
}

# --- a FIFO at the old name, with the planter's reader waiting on it
rm -f "$T"/rtsoak-*
(
	for _ in $(seq 100); do [ -s planted.pid ] && [ -p "$T/rtsoak-$(cat planted.pid).json" ] && break; sleep 0.05; done
	exec cat "$T/rtsoak-$(cat planted.pid).json" >stolen-by-fifo
) &
reader=$!
rm -f planted.pid
plant_and_run fifo
rc=$?
old="$T/rtsoak-$(cat planted.pid).json"
# Let the reader go (a writer that opens and closes gives it EOF).
[ -p "$old" ] && timeout 5 bash -c ': >"$1"' _ "$old"
kill $reader 2>/dev/null
wait $reader 2>/dev/null
fb=$(fallback_of err)
[ $rc -eq 3 ] && [ -n "$fb" ] && [ "$fb" != "$old" ] && [ -f "$fb" ] && [ ! -L "$fb" ] && validate "$fb"
ok $? "FIFO planted at the old name: exit 3, the report is in a new file the message names ('$fb', rc=$rc, $(tr '\n' '|' <err | head -c 300))"
[ "$(node "$fb")" = "0 600 regular file" ]
ok $? "the fallback is root's and 0600 ($(node "$fb" 2>&1))"
[ ! -s stolen-by-fifo ]
ok $? "the planter's reader got nothing ($(wc -c <stolen-by-fifo) bytes)"
[ "$(node "$old")" = "65534 666 fifo" ]
ok $? "the planted FIFO is untouched ($(node "$old" 2>&1))"

# --- the same FIFO without a reader: the run must not wait for one
rm -f "$T"/rtsoak-* planted.pid
plant_and_run fifo
rc=$?
old="$T/rtsoak-$(cat planted.pid).json"
fb=$(fallback_of err)
[ $rc -eq 3 ] && [ -n "$fb" ] && [ -f "$fb" ] && ! grep -q "waiting for a reader" err && validate "$fb"
ok $? "FIFO without a reader: the run ends by itself, exit 3, the fallback named (rc=$rc; 124 is the timeout; $(tr '\n' '|' <err | head -c 300))"

# --- a symlink at the old name, to a file the planter would read
rm -f "$T"/rtsoak-* "$T/stolen.json" planted.pid
plant_and_run symlink
rc=$?
old="$T/rtsoak-$(cat planted.pid).json"
fb=$(fallback_of err)
[ $rc -eq 3 ] && [ -n "$fb" ] && [ "$fb" != "$old" ] && [ "$(node "$fb")" = "0 600 regular file" ] && validate "$fb"
ok $? "symlink planted at the old name: the report is in a new 0600 file, not lost ('$fb', rc=$rc, $(tr '\n' '|' <err | head -c 300))"
[ -L "$old" ] && [ "$(stat -c %u "$old")" = 65534 ] && [ ! -e "$T/stolen.json" ]
ok $? "the planted symlink is untouched and names nothing still"

# --- every fallback gets a name of its own
rm -f "$T"/rtsoak-*
TMPDIR="$T" $RUN >/dev/full 2>err1
TMPDIR="$T" $RUN >/dev/full 2>err2
a=$(fallback_of err1)
b=$(fallback_of err2)
case $a in "$T"/rtsoak-[0-9]*-??????????.json) named=1 ;; *) named=0 ;; esac
[ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ] && [ $named -eq 1 ]
ok $? "the name is rtsoak-PID- and 10 random characters ('$a', '$b')"

# --- a TMPDIR other users may empty: passed over for /tmp
for how in "world-writable, not sticky" "owned by uid 65534"; do
	U="$WORK/u-$RANDOM"
	mkdir "$U"
	case $how in
	world*) chmod 777 "$U" ;;
	*) chown 65534:65534 "$U" && chmod 755 "$U" ;;
	esac
	TMPDIR="$U" $RUN >/dev/full 2>err
	rc=$?
	fb=$(fallback_of err)
	[ $rc -eq 3 ] && [ -n "$fb" ] && [ "${fb#/tmp/rtsoak-}" != "$fb" ] && [ -z "$(ls -A "$U")" ] &&
		[ "$(node "$fb")" = "0 600 regular file" ] && validate "$fb"
	ok $? "TMPDIR $how: the report goes to /tmp instead ('$fb', rc=$rc, $(tr '\n' '|' <err | head -c 300))"
	case $fb in /tmp/rtsoak-[0-9]*.json) rm -f "$fb" ;; esac
done

done_testing
