#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Load files in a shared workdir (issue 12, items 5 and 16).  A workdir like
# /tmp (mode 1777) where user nobody planted symlinks named like the disk
# load's files for the coming pids, pointing at a root-owned file: with
# fs.protected_symlinks=0 (restored at once, and by the EXIT trap) the run
# must not write through them; its files live in a private 0700 directory
# that is gone after the run, after a SIGKILL of rtsoak (its supervisor
# cleans up) and, after a SIGKILL of rtsoak and its supervisor, after the
# next run's leftover clean-up, which never follows a planted symlink and
# never touches what is not ours.  And a load whose workers were restarted
# says so: status "restarted" and a warning in the report and the summary.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema
"$RTSOAK" loads | grep -q "^disk:" || skip_all "the disk load is not registered"
command -v setpriv >/dev/null || skip_all "setpriv (util-linux) is not installed"
command -v unshare >/dev/null || skip_all "unshare (util-linux) is not installed"
unshare -pf true 2>/dev/null || skip_all "cannot make a pid namespace here"
PS=/proc/sys/fs/protected_symlinks
[ -w $PS ] || skip_all "$PS is not writable here"

plan 15
cd "$WORK" || exit 1
ps_orig=$(cat $PS)
# protected_symlinks is system-wide: written only when it is not 0 already,
# for as short as the attack's run, and put back on every way out.
put_back() { [ "$(cat $PS)" = "$ps_orig" ] || echo "$ps_orig" >$PS; }
trap 'put_back; rm -rf "$WORK"' EXIT
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
SH=$WORK/shared
mkdir -m 1777 "$SH"
# What belongs to the run (root) in the shared directory: "mode owner path".
ours() { find "$SH" -mindepth 1 -user root -printf '%M %u %p\n' 2>/dev/null; }
is_private_dir='^drwx------ root .*/rtsoak-load-[0-9]+-[A-Za-z0-9]{6}$'

# --- the attack: symlinks for the coming pids to a root-owned file
printf 'precious root data\n' >victim
chmod 644 victim
cp victim victim.orig
# In a pid namespace the run's pid is small and known to be in this range.
$AS_NOBODY sh -c 'for p in $(seq 1 200); do
	ln -s "$1" "$2/rtsoak-load-$p-0-w0.dat"; done' sh "$WORK/victim" "$SH"
planted=$(find "$SH" -maxdepth 1 -type l -user nobody | wc -l)
diag "planted $planted symlinks owned by nobody"
[ "$ps_orig" = 0 ] || echo 0 >$PS
# Watch what the run creates: the private directory and the files in it.
unshare -pf "$RTSOAK" run --probes timer -D 2s --cpus 0 --loads disk:size=8M \
	--workdir "$SH" -q -o attack.json 2>attack.err &
rpid=$!
: >seen
while kill -0 $rpid 2>/dev/null; do
	find "$SH" -mindepth 1 -maxdepth 2 -user root -printf '%M %u %p\n' >>seen 2>/dev/null
	sleep 0.05
done
wait $rpid
rc=$?
put_back
ok $rc "disk load in a 1777 workdir full of planted symlinks: exit 0 ($(head -c 200 attack.err))"
cmp -s victim victim.orig
ok $? "the root-owned victim behind the symlinks is unchanged ($(head -c 40 victim | tr -c "[:print:]" .))"
dir=$(grep -E "$is_private_dir" seen | head -1 | awk '{print $3}')
[ -n "$dir" ] && grep -qE "^-rw------- root $dir/rtsoak-load-[0-9]+-0-w0\.dat$" seen
ok $? "the run's files lived in a private 0700 directory of root's (${dir:-none seen}; $(sort -u seen | head -3 | tr '\n' ';'))"
left=$(ours)
[ -z "$left" ] && [ "$(find "$SH" -maxdepth 1 -type l -user nobody | wc -l)" -eq "$planted" ]
ok $? "after the run nothing of ours is left, nobody's symlinks are untouched ($left)"
find "$SH" -mindepth 1 -delete

# --- SIGKILL of rtsoak: the supervisor (PR_SET_PDEATHSIG) removes the directory
$TAGGED "$RTSOAK" run --probes timer -D 30s --cpus 0 --loads disk:size=8M,slab:mode=files \
	--workdir "$SH" -q -o kill1.json 2>/dev/null &
pid=$!
sleep 1.5
during=$(ours | grep -cE "$is_private_dir")
kill -KILL $pid
wait $pid 2>/dev/null
for _ in $(seq 50); do
	[ -z "$(tagged_pids)" ] && [ -z "$(ours)" ] && break
	sleep 0.1
done
left="$(tagged_pids)$(ours)"
[ "$during" -eq 1 ] && [ -z "$left" ]
ok $? "SIGKILL of rtsoak: one private directory during the run, nothing left after ($during; $left)"

# --- SIGKILL of rtsoak and its supervisor: the next run removes the leftover
$TAGGED "$RTSOAK" run --probes timer -D 30s --cpus 0 --loads disk:size=8M --workdir "$SH" \
	-q -o kill2.json 2>/dev/null &
pid=$!
sleep 1.5
sup=$(pgrep -P $pid -x rtsoak-loads)
# The supervisor first: killed after rtsoak, it could already have begun
# its clean-up (PR_SET_PDEATHSIG) and removed some of the files.
kill -KILL $sup
kill -KILL $pid
wait $pid 2>/dev/null
for _ in $(seq 30); do
	[ -z "$(tagged_pids)" ] && break
	sleep 0.1
done
kept=$(ours)
echo "$kept" | grep -qE "$is_private_dir" &&
	echo "$kept" | grep -qE '^-rw------- root .*/rtsoak-load-[0-9]+-[A-Za-z0-9]{6}/rtsoak-load-[0-9]+-0-w0\.dat$'
ok $? "SIGKILL of rtsoak and supervisor (${sup:-none}): the private directory with its file is left ($(echo $kept))"
# Next to it: what another user planted must survive the clean-up.  A
# symlink named like a dead pid's private directory, to a directory of
# root's, and a real directory of nobody's named so.
mkdir target
echo keep >target/keep.txt
$AS_NOBODY ln -s "$WORK/target" "$SH/rtsoak-load-999998-AbCdEf"
$AS_NOBODY mkdir "$SH/rtsoak-load-999997-GhIjKl"
$AS_NOBODY sh -c "echo keep >$SH/rtsoak-load-999997-GhIjKl/keep.txt"
$AS_NOBODY sh -c "echo keep >$SH/rtsoak-load-999996-0-w0.dat"
rtsoak_tagged run --probes timer -D 1s --cpus 0 --loads disk:size=8M --workdir "$SH" -q \
	-o next.json 2>next.err
ok $? "the next run exits 0 ($(head -c 300 next.err))"
nfiles=$(echo "$kept" | grep -c '^-')
grep -q "removed $nfiles file(s) in 1 private directory left in $SH by an earlier run" next.err
ok $? "it says it removed the killed run's directory and its $nfiles file(s), nothing else ($(cat next.err))"
left=$(ours)
[ -z "$left" ]
ok $? "nothing of ours is left in the workdir ($left)"
[ "$(cat target/keep.txt)" = keep ] && [ -L "$SH/rtsoak-load-999998-AbCdEf" ] &&
	[ "$(cat "$SH/rtsoak-load-999997-GhIjKl/keep.txt")" = keep ] &&
	[ "$(cat "$SH/rtsoak-load-999996-0-w0.dat")" = keep ]
ok $? "the clean-up followed no planted symlink and removed nothing of nobody's ($(ls -la "$SH" | tail -n +4 | tr '\n' ';'))"
find "$SH" -mindepth 1 -delete

# --- a load that cannot create its files: exit 3 with one line, nothing left
# (a tmpfs with room for the private directory but not for a file in it, in
# a private mount namespace)
mkdir full
unshare -m --propagation private sh -c 'mount -t tmpfs -o nr_inodes=2,mode=1777 tmpfs full &&
	"$1" run --probes timer -D 1s --cpus 0 --loads disk:size=8M --workdir full -q \
		-o full.json 2>full.err; echo $? >full.rc; ls -A full >full.left' sh "$RTSOAK"
[ "$(cat full.rc)" = 3 ] && [ "$(grep -c . full.err)" = 1 ] &&
	grep -q "rtsoak: --loads: disk: cannot create files in full/rtsoak-load-[0-9]*-" full.err &&
	[ ! -s full.left ]
ok $? "a load whose start fails: exit 3, one line, the private directory removed (rc $(cat full.rc); $(cat full.err); left: $(cat full.left))"

# --- a load whose worker keeps exiting: restarted N times, said so
rtsoak_tagged run --probes timer -D 3s --cpus 0 --loads exec:cmd=false --workdir "$SH" \
	-o ex.json >ex.out 2>ex.err
ok $? "exec:cmd=false: exit 0 ($(head -c 200 ex.err))"
validate ex.json
ok $? "exec:cmd=false: the report is schema-valid"
n=$(jget ex.json 'r["loads"][0]["restarts"]')
[ "$(jget ex.json 'r["loads"][0]["status"]')" = restarted ] && [ "$n" -ge 1 ]
ok $? "exec:cmd=false: load status says restarted ($(jget ex.json '(r["loads"][0]["status"], r["loads"][0]["restarts"])'))"
times=times
[ "$n" = 1 ] && times=time
[ "$(jget ex.json "\"load exec: restarted $n $times (exit status 1)\" in r[\"run\"][\"warnings\"]")" = true ] &&
	grep -q "^warning: load exec: restarted $n $times (exit status 1)$" ex.out
ok $? "exec:cmd=false: a warning in the report and the summary ($(jget ex.json 'r["run"]["warnings"]'); $(grep restarted ex.out))"
done_testing
