#!/bin/bash
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

# Sample the allowed CPUs of each rtsoak-slab/ worker of this run, every
# 20 ms for ~2 s, as lines "PID CPULIST" into $1.
sample_affinity() {
	local i p
	: >"$1"
	for ((i = 0; i < 100; i++)); do
		for p in $(tagged_pids); do
			case $(cat "/proc/$p/comm" 2>/dev/null) in
			rtsoak-slab/*)
				sed -n "s/^Cpus_allowed_list:[[:space:]]*/$p /p" "/proc/$p/status" 2>/dev/null >>"$1"
				;;
			esac
		done
		sleep 0.02
	done
}

# The number of workers seen with more than one distinct CPU list.
movers() { sort -u "$1" | awk '{ n[$1]++ } END { m = 0; for (p in n) if (n[p] > 1) m++; print m }'; }

for f in next own; do
	rtsoak_tagged run --duration 3s --cpus 0 --loads "slab:mode=bulk:free=$f" --load-cpus 0-1 \
		--workdir "$WORK/wd" -q -o "$f.json" 2>"$f.err" &
	pid=$!
	sleep 0.5
	sample_affinity "aff-$f"
	wait $pid
	ok $? "free=$f: run exits 0 ($(head -c 300 "$f.err"))"
	[ "$(jget "$f.json" '(r["loads"][0]["ops"] > 0, r["loads"][0]["status"], r["loads"][0]["options"]["free"])')" = "[true, \"ok\", \"$f\"]" ]
	ok $? "free=$f: did measurable work ($(jget "$f.json" '[(x["ops"], x["status"], x["last_error"]) for x in r["loads"]]'))"
done

[ "$(cut -d' ' -f1 aff-next | sort -u | wc -l)" -eq 2 ] && [ "$(movers aff-next)" -ge 1 ]
ok $? "free=next: a bulk worker is seen allowed on each CPU in turn ($(sort aff-next | uniq -c | tr '\n' ';'))"
[ "$(cut -d' ' -f1 aff-own | sort -u | wc -l)" -eq 2 ] && [ "$(movers aff-own)" -eq 0 ] &&
	[ "$(cut -d' ' -f2 aff-own | sort -u | tr '\n' ' ')" = "0 1 " ]
ok $? "free=own: each bulk worker stays on its own CPU, one per CPU ($(sort aff-own | uniq -c | tr '\n' ';'))"

rtsoak_tagged run --duration 2s --cpus 0 --loads slab:mode=files:free=next --load-cpus 0-1 \
	--workdir "$WORK/wd" -q -o files.json 2>files.err
ok $? "mode=files:free=next: run exits 0 ($(head -c 300 files.err))"
[ "$(jget files.json 'r["loads"][0]["ops"] > 0 and r["loads"][0]["errors"] == 0')" = true ]
ok $? "mode=files:free=next: files unlinked, no error ($(jget files.json '[(x["ops"], x["errors"], x["last_error"]) for x in r["loads"]]'))"
[ -z "$(ls -A wd)" ] && [ -z "$(tagged_pids)" ]
ok $? "workdir empty and no process of the runs left ($(ls wd | head -3))"
done_testing
