#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The slab load's free= option: free=next frees each bulk batch on the next
# load CPU (the worker moves there and back), free=own on the CPU that
# allocated it.  Seen from outside: a bulk worker's allowed CPUs
# (/proc/PID/status) take both values under free=next and only its own under
# free=own; both do work; files batches unlinked on the next CPU leave the
# workdir empty.
. "$(dirname "$0")/lib.sh"
require_root
[ "$(nproc)" -ge 2 ] || skip_all "needs 2 CPUs (free=next moves between two load CPUs)"
plan 11
cd "$WORK" || exit 1
mkdir wd

"$RTSOAK" loads | grep -Eq '^  free +choice +default next +next\|own '
ok $? "rtsoak loads lists slab's free= option (next|own, default next)"

rtsoak_tagged run --duration 1s --cpus 0 --loads slab:free=far -q -o bad.json 2>bad.err
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <bad.err)" -eq 1 ] && grep -q '^rtsoak: .*free' bad.err && [ ! -e bad.json ]
ok $? "free=far: exit 2 with one line naming the option, no report (rc $rc: $(head -c 200 bad.err))"

# Sample the allowed CPUs of each rtsoak-slab/ worker of this run for 2 s,
# as lines "PID CPULIST" into $1.  The workers are found once (tagged_pids
# reads every process's environment: too slow to repeat), and the samples are
# read with builtins only: on a busy machine a fork per sample would leave
# only a few.
sample_affinity() {
	local p k v workers=() end
	: >"$1"
	for p in $(tagged_pids); do
		case $(cat "/proc/$p/comm" 2>/dev/null) in
		rtsoak-slab/*) workers+=("$p") ;;
		esac
	done
	end=$((${EPOCHREALTIME/./} + 2000000))
	while ((${EPOCHREALTIME/./} < end)); do
		for p in "${workers[@]}"; do
			while read -r k v; do
				[[ $k == Cpus_allowed_list: ]] && echo "$p $v"
			done <"/proc/$p/status" 2>/dev/null
		done >>"$1"
	done
}

# own_slab_workers: this run's slab workers have started (another test's
# beside it do not count).
own_slab_workers() {
	local p
	for p in $(tagged_pids); do
		[[ $(cat "/proc/$p/comm" 2>/dev/null) == rtsoak-slab/* ]] && return 0
	done
	return 1
}

# The number of workers seen with more than one distinct CPU list.
movers() { sort -u "$1" | awk '{ n[$1]++ } END { m = 0; for (p in n) if (n[p] > 1) m++; print m }'; }

for f in next own; do
	rtsoak_tagged run --duration 3s --cpus 0 --loads "slab:mode=bulk:free=$f" --load-cpus 0-1 \
		--workdir "$WORK/wd" -q -o "$f.json" 2>"$f.err" &
	pid=$!
	# its slab workers started (under ASan on a busy machine, later than
	# the 0.8 s this once waited: nothing was sampled), then 0.3 s of work
	wait_until 30 own_slab_workers
	sleep 0.3
	sample_affinity "aff-$f"
	wait $pid
	ok $? "free=$f: run exits 0 ($(head -c 300 "$f.err"))"
	[ "$(jget "$f.json" '(r["loads"][0]["ops"] > 0, r["loads"][0]["status"], r["loads"][0]["options"]["free"])')" = "[true, \"ok\", \"$f\"]" ]
	ok $? "free=$f: did measurable work ($(jget "$f.json" '[(x["ops"], x["status"], x["last_error"]) for x in r["loads"]]'))"
done

[ "$(cut -d' ' -f1 aff-next | sort -u | wc -l)" -eq 2 ] && [ "$(movers aff-next)" -ge 1 ]
ok $? "free=next: a bulk worker is seen allowed on each CPU in turn ($(sort aff-next | uniq -c | tr -s ' \n' ' ;'))"
[ "$(cut -d' ' -f1 aff-own | sort -u | wc -l)" -eq 2 ] && [ "$(movers aff-own)" -eq 0 ] &&
	[ "$(cut -d' ' -f2 aff-own | sort -u | tr '\n' ' ')" = "0 1 " ]
ok $? "free=own: each bulk worker stays on its own CPU, one per CPU ($(sort aff-own | uniq -c | tr -s ' \n' ' ;'))"

rtsoak_tagged run --duration 2s --cpus 0 --loads slab:mode=files:free=next --load-cpus 0-1 \
	--workdir "$WORK/wd" -q -o files.json 2>files.err
ok $? "mode=files:free=next: run exits 0 ($(head -c 300 files.err))"
[ "$(jget files.json 'r["loads"][0]["ops"] > 0 and r["loads"][0]["errors"] == 0')" = true ]
ok $? "mode=files:free=next: files unlinked, no error ($(jget files.json '[(x["ops"], x["errors"], x["last_error"]) for x in r["loads"]]'))"
[ -z "$(ls -A wd)" ] && [ -z "$(tagged_pids)" ]
ok $? "workdir empty and no process of the runs left ($(ls wd | head -3))"
done_testing
