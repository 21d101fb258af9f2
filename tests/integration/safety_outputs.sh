#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Outputs are written according to what their path names, decided before a
# run starts: a character device or FIFO is written in place and stays what
# it is, a directory, socket, block device or foreign symlink is refused
# (exit 2, without measuring), a regular file is replaced atomically.
# Every write error reaches the exit status (3), a report that cannot reach
# its path falls back to a new $TMPDIR/rtsoak-PID-RANDOM.json and says so, and a temp
# file a killed run left is reported at the start.
#
# Device nodes are only ever made and written inside a private mount
# namespace with a tmpfs on /dev: the script runs itself again under
# `unshare -m`, so the real /dev is never touched.
if [ "${RTSOAK_OUTPUTS_NS:-}" != 1 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "1..0 # SKIP needs root (mount namespace, SCHED_FIFO)"
		exit 0
	fi
	if ! unshare -m --propagation private true 2>/dev/null; then
		echo "1..0 # SKIP cannot make a private mount namespace (unshare -m)"
		exit 0
	fi
	RTSOAK_OUTPUTS_NS=1 exec unshare -m --propagation private bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema

SMALL="$top_srcdir/tests/data/report-small.json"
[ -f "$SMALL" ] || SMALL="$(cd "$(dirname "$0")/../data" && pwd)/report-small.json"

mount -t tmpfs -o mode=755 tmpfs /dev || skip_all "cannot mount a tmpfs on /dev in the namespace"
mknod -m 666 /dev/null c 1 3 && mknod -m 666 /dev/full c 1 7 && mknod -m 666 /dev/zero c 1 5 &&
	mknod -m 600 /dev/rtsoak-blk b 7 0 && ln -s /proc/self/fd /dev/fd &&
	ln -s /proc/self/fd/1 /dev/stdout && ln -s /proc/self/fd/2 /dev/stderr ||
	skip_all "cannot make device nodes in the private /dev"

plan 40
cd "$WORK" || exit 1
export TMPDIR="$WORK/tmp"
mkdir "$TMPDIR"
RUN="$RTSOAK run --probes timer --cpus 0 --interval 1ms -q"
node() { stat -c '%F %t,%T' "$1"; }
one_line() { [ "$(wc -l <"$1")" -eq 1 ]; }

# --- report into devices: they stay devices
"$RTSOAK" report "$SMALL" --html /dev/null 2>err
rc=$?
[ $rc -eq 0 ] && [ "$(node /dev/null)" = "character special file 1,3" ]
ok $? "report --html /dev/null: exit 0, /dev/null is still the character device 1,3 (rc=$rc, $(node /dev/null))"
grep -q "'/dev/null' is a character device: written in place, not atomically" err
ok $? "report --html /dev/null: says it is written in place ($(head -c 200 err))"

"$RTSOAK" report "$SMALL" --json /dev/stdout >out.json 2>err
rc=$?
[ $rc -eq 0 ] && "$PYTHON3" -c 'import json,sys; json.load(open(sys.argv[1]))' out.json &&
	[ -L /dev/stdout ]
ok $? "report --json /dev/stdout: the JSON is on standard output, /dev/stdout still a symlink (rc=$rc, $(wc -c <out.json) bytes)"
"$RTSOAK" report "$SMALL" --json /dev/stdout 2>/dev/null | "$PYTHON3" -c 'import json,sys; json.load(sys.stdin)'
ok $? "report --json /dev/stdout into a pipe: the JSON arrives"

"$RTSOAK" report "$SMALL" --json /dev/full 2>err
rc=$?
[ $rc -eq 3 ] && [ "$(node /dev/full)" = "character special file 1,7" ] &&
	grep -q "cannot write '/dev/full': No space left on device" err
ok $? "report --json /dev/full: exit 3 naming ENOSPC, /dev/full still 1,7 (rc=$rc, $(tail -n1 err))"

mkfifo fifo
cat fifo >from-fifo &
reader=$!
timeout 20 "$RTSOAK" report "$SMALL" --json fifo 2>err
rc=$?
# A FIFO replaced by a file never gets its writer: do not wait for it.
[ -p fifo ] || kill $reader 2>/dev/null
wait $reader
[ $rc -eq 0 ] && [ -p fifo ] && "$PYTHON3" -c 'import json,sys; json.load(open(sys.argv[1]))' from-fifo
ok $? "report --json FIFO: the reader gets the JSON, the FIFO stays a FIFO (rc=$rc, $(wc -c <from-fifo) bytes)"

(sleep 1 && cat fifo >late-fifo) &
reader=$!
timeout 20 "$RTSOAK" report "$SMALL" --json fifo 2>err
rc=$?
[ -p fifo ] || kill $reader 2>/dev/null
wait $reader
[ $rc -eq 0 ] && grep -q "waiting for a reader of the FIFO 'fifo'" err && [ -s late-fifo ]
ok $? "report --json FIFO without a reader yet: says it waits, then writes (rc=$rc, $(tr '\n' '|' <err | head -c 200))"

# --- refused before reading or measuring: exit 2, one line, node untouched
mkdir adir
"$PYTHON3" -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' sock
"$RTSOAK" report "$SMALL" --html adir 2>err
rc=$?
[ $rc -eq 2 ] && one_line err && grep -q "'adir' is a directory" err && [ -d adir ] &&
	[ -z "$(ls -A adir)" ]
ok $? "report --html DIR: exit 2, one line, nothing written into it (rc=$rc, $(head -c 200 err))"
"$RTSOAK" report "$SMALL" --json sock 2>err
rc=$?
[ $rc -eq 2 ] && one_line err && grep -q "'sock' is a socket" err && [ -S sock ]
ok $? "report --json SOCKET: exit 2, one line, still a socket (rc=$rc, $(head -c 200 err))"
"$RTSOAK" report "$SMALL" --json /dev/rtsoak-blk 2>err
rc=$?
[ $rc -eq 2 ] && one_line err && grep -q "is a block device" err &&
	[ "$(node /dev/rtsoak-blk)" = "block special file 7,0" ]
ok $? "report --json BLOCKDEV: exit 2, one line, still the block device (rc=$rc, $(head -c 200 err))"
ln -s adir link-to-dir
"$RTSOAK" compare "$SMALL" "$SMALL" --json link-to-dir >/dev/null 2>err
rc=$?
[ $rc -eq 2 ] && one_line err && grep -q "leads to a directory" err && [ -L link-to-dir ]
ok $? "compare --json SYMLINK-TO-DIR: exit 2, one line, the link stays (rc=$rc, $(head -c 200 err))"

# A symlink someone else owns is not followed (a planted link in a shared
# directory); root's own is, and the file it names is replaced, not the link.
echo precious >target.json
ln -s target.json foreign.json
chown -h nobody foreign.json
"$RTSOAK" report "$SMALL" --json foreign.json 2>err
rc=$?
[ $rc -eq 2 ] && one_line err && [ "$(cat target.json)" = precious ] && [ -L foreign.json ]
ok $? "report --json LINK-OWNED-BY-NOBODY: exit 2, the file it names untouched (rc=$rc, $(head -c 200 err))"
ln -s target.json mine.json
"$RTSOAK" report "$SMALL" --json mine.json 2>err
rc=$?
[ $rc -eq 0 ] && [ -L mine.json ] && cmp -s target.json <("$RTSOAK" report "$SMALL" --json - 2>/dev/null) &&
	[ "$(stat -c %a target.json)" = 644 ]
ok $? "report --json ROOTS-LINK: the file it names is replaced (0644), the link stays (rc=$rc)"
ln -s nowhere dangling.json
"$RTSOAK" report "$SMALL" --json dangling.json 2>err
rc=$?
[ $rc -eq 2 ] && [ -L dangling.json ] && [ ! -e nowhere ]
ok $? "report --json DANGLING-LINK: exit 2, nothing created (rc=$rc, $(head -c 200 err))"

# --- run: refused at parse time, well before --duration 10s would end: in
# less time than a whole one-sample run (the reference, measured here).
# Both the best of 3: one refusal against the best of 3 runs lost to a
# busy machine's noise under ASan (299 ms against 172).
ref=$(ref_run_ms)
for opt in "-o adir" "--prom adir" "--html adir" "-o sock"; do
	$RUN --duration 10s -o r-never.json $opt 2>err
	rc=$?
	# shellcheck disable=SC2086
	ms=$(best_ms sh -c '"$@"; [ $? -eq 2 ]' _ $RUN --duration 10s -o r-never.json $opt) || ms=999999
	[ $rc -eq 2 ] && one_line err && [ "$ms" -lt "$ref" ] && [ ! -e r-never.json ] && [ -d adir ]
	ok $? "run $opt: exit 2 in ${ms} ms (a one-sample run: $ref ms), one line, nothing measured (rc=$rc, $(head -c 200 err))"
done

# --- run into devices and a FIFO
$RUN --duration 1s -o /dev/full 2>err
rc=$?
[ $rc -eq 3 ] && [ "$(grep -c 'No space left on device' err)" -eq 1 ] &&
	[ "$(node /dev/full)" = "character special file 1,7" ]
ok $? "run -o /dev/full: exit 3, one ENOSPC line, /dev/full still 1,7 (rc=$rc, $(tr '\n' '|' <err | head -c 300))"
fb=$(sed -n "s|.*the report is in \(.*\) instead.*|\1|p" err)
[ -n "$fb" ] && [ -f "$fb" ] && validate "$fb"
ok $? "run -o /dev/full: the report fell back to '$fb', which is named and valid"
rm -f "$TMPDIR"/rtsoak-*.json

[ -p fifo ] || { rm -f fifo && mkfifo fifo; }
cat fifo >run-fifo.json &
reader=$!
timeout 30 $RUN --duration 1s -o fifo --checkpoint 1s 2>err
rc=$?
[ -p fifo ] || kill $reader 2>/dev/null
wait $reader
[ $rc -eq 0 ] && [ -p fifo ] && validate run-fifo.json
ok $? "run -o FIFO: the reader gets a valid report, the FIFO stays a FIFO (rc=$rc, $(head -c 200 err))"
[ "$(jget run-fifo.json 'r["config"]["checkpoint_ns"]')" = null ] &&
	grep -q "'fifo' is a FIFO: written in place, not atomically; no checkpoints" err
ok $? "run -o FIFO: checkpoints are off, said once and echoed as checkpoint_ns null"

# A FIFO nobody reads: the end of the run waits for a reader, and Ctrl-C
# (SIGINT, blocked in a run and taken by its main thread) ends the wait: the
# report goes to the fallback instead of hanging until SIGKILL.
# Promptly: the run's tail (the fallback report written, exit) is part of
# a whole one-sample run; twice it plus the wait loop's 0.1 s step, and
# like the reference the best of up to 3 tries (one try took 873 ms against
# a 164 ms reference under ASan beside other jobs).
fifo_sigint() {
	[ -p fifo ] || { rm -f fifo && mkfifo fifo; }
	$RUN --duration 1s -o fifo 2>err &
	pid=$!
	for _ in $(seq 100); do grep -q "waiting for a reader" err && break; sleep 0.1; done
	kill -INT $pid
	local t0
	t0=$(date +%s%N)
	# An rtsoak that cannot end the wait would hang here: give it 10 s.
	for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
	kill -KILL $pid 2>/dev/null
	wait $pid
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	fb=$(sed -n "s|.*cannot write 'fifo'.*the report is in \(.*\) instead.*|\1|p" err)
	[ $rc -eq 3 ] && [ -p fifo ] && [ -n "$fb" ] && validate "$fb"
}
tries=""
for _ in 1 2 3; do
	fifo_sigint
	st=$?
	tries="$tries ${ms}"
	[ $st -ne 0 ] && break # wrong: no retry hides that
	[ $ms -lt $((2 * ref + 100)) ] && break
	rm -f "$fb"
done
[ $st -eq 0 ] && [ $ms -lt $((2 * ref + 100)) ]
ok $? "run -o FIFO without a reader: SIGINT ends the wait, exit 3, the fallback is named (rc=$rc, tries${tries} ms, a one-sample run $ref ms, $(tr '\n' '|' <err | head -c 300))"
rm -f "$TMPDIR"/rtsoak-*.json

# A reader that is gone before the end (here: at once): EPIPE, not death by
# SIGPIPE; the report is not lost.
$RUN --duration 1s -o - 2>err | true
rc=${PIPESTATUS[0]}
fb=$(sed -n "s|.*the report is in \(.*\) instead.*|\1|p" err)
[ $rc -eq 3 ] && grep -q "Broken pipe" err && [ -n "$fb" ] && validate "$fb"
ok $? "run -o - | true: exit 3 with EPIPE, not SIGPIPE; the fallback is named (rc=$rc, $(tr '\n' '|' <err | head -c 300))"
rm -f "$TMPDIR"/rtsoak-*.json

$RUN --duration 1s -o dev.json --html /dev/null --prom /dev/null 2>err
rc=$?
[ $rc -eq 0 ] && [ "$(node /dev/null)" = "character special file 1,3" ] && validate dev.json
ok $? "run --html /dev/null --prom /dev/null: exit 0, /dev/null still 1,3 (rc=$rc)"

# --- standard output full: every command says it and exits 3
for cmd in "sysinfo" "probes" "report $SMALL --text" "report $SMALL" "compare $SMALL $SMALL" \
	"report $SMALL --json -" "report $SMALL --html -"; do
	# shellcheck disable=SC2086
	"$RTSOAK" $cmd >/dev/full 2>err
	rc=$?
	[ $rc -eq 3 ] && one_line err && grep -q "No space left on device" err
	ok $? "$cmd > /dev/full: exit 3, one line (rc=$rc, $(head -c 200 err))"
done
$RUN --duration 1s -o - >/dev/full 2>err
rc=$?
fb=$(sed -n "s|.*the report is in \(.*\) instead.*|\1|p" err)
[ $rc -eq 3 ] && one_line err && [ -n "$fb" ] && validate "$fb"
ok $? "run -o - > /dev/full: exit 3, one line naming the fallback '$fb' (rc=$rc, $(head -c 300 err))"
rm -f "$TMPDIR"/rtsoak-*.json
$RUN --duration 1s -o html-full.json --html - >/dev/full 2>err
rc=$?
[ $rc -eq 3 ] && one_line err && grep -q -- "--html: cannot write '-': No space left on device" err &&
	validate html-full.json
ok $? "run --html - > /dev/full: exit 3, one line, the JSON report is written (rc=$rc, $(head -c 300 err))"

# --- the output directory removed mid-run
# Waits for states, not times: the run ends (SIGINT) once a checkpoint after
# the removal has failed; under ASan on a busy machine the first checkpoint
# can come so late that a 3 s run had none after it.
mkdir gone
$RUN --duration 60s --checkpoint 1s -o gone/r.json 2>err &
pid=$!
wait_until 30 test -f gone/r.json
had=$([ -f gone/r.json ] && echo yes || echo no)
rm -rf gone
wait_until 30 grep -q "checkpoint of 'gone/r.json' failed" err
kill -INT $pid
wait $pid
rc=$?
fb=$(sed -n "s|.*cannot write 'gone/r.json'.*the report is in \(.*\) instead.*|\1|p" err)
[ $rc -eq 3 ] && [ -n "$fb" ] && [ -f "$fb" ] && validate "$fb"
ok $? "output dir removed mid-run: exit 3, the fallback '$fb' is named and valid (rc=$rc, first checkpoint: $had)"
grep -q "checkpoint of 'gone/r.json' failed" err && ! grep -q "kept the previous one" err
ok $? "a failed checkpoint in a removed directory does not claim to have kept one ($(grep checkpoint err | head -n1 | head -c 200))"
rm -f "$TMPDIR"/rtsoak-*.json

# --- a temp file a killed run left is reported, never removed
sleep 0 &
dead=$!
wait $dead
while kill -0 $dead 2>/dev/null; do dead=$((dead + 1)); done
mkdir keep
cp "$SMALL" keep/r.json
touch -d '1 hour ago' keep/r.json
cp "$SMALL" "keep/.rtsoak-$dead-Ab12Cd"
head -c 100 "$SMALL" >"keep/.rtsoak-$dead-Xy34Zw"
$RUN --duration 1s -o keep/r.json 2>err
rc=$?
[ $rc -eq 0 ] && grep -q "'keep/.rtsoak-$dead-Ab12Cd' was left by a killed run (pid $dead,.*whole JSON document and is newer than 'keep/r.json': to keep it, mv" err &&
	[ -f "keep/.rtsoak-$dead-Ab12Cd" ]
ok $? "run: a whole temp report of a dead pid is reported with how to keep it, and kept (rc=$rc, $(grep Ab12Cd err | head -c 300))"
grep -q "'keep/.rtsoak-$dead-Xy34Zw' was left by a killed run (pid $dead,.*not a whole report: not removed" err &&
	[ -f "keep/.rtsoak-$dead-Xy34Zw" ] && [ "$(grep -c rtsoak- err)" -eq 2 ]
ok $? "run: a partial one is reported once as not whole, and kept ($(grep Xy34Zw err | head -c 300))"
printf '{\n  "schema": "rtsoak-journal/1",\n  "files": []\n}\n' >"keep/.rtsoak-$dead-Jr56Nl"
"$RTSOAK" report "$SMALL" --json keep/again.json 2>err
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c "was left by a killed run (pid $dead" err)" -eq 3 ]
ok $? "report: reports them too (rc=$rc)"
grep -q "Jr56Nl' was left by a killed run (pid $dead, .*), a whole --set journal: not removed" err
ok $? "a journal's temp file is never offered as a report ($(grep Jr56Nl err | head -c 300))"

done_testing
