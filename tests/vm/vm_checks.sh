#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# vm_checks.sh: what only the PREEMPT_RT guest (tests/vm, >= 4 vCPUs in two
# NUMA nodes) can check.  Runs inside it, as one TAP test of check-vm:
#  - the preempt model is detected as rt (and the check says pass);
#  - each probe thread's recorder memory is bound to its CPU's node and its
#    pages are there (/proc/PID/numa_maps of a running rtsoak);
#  - the net sender runs off the measured CPUs when --cpus leaves some free;
#  - ab --set on every slab cache's cpu_partial (pre-sheaves SLUB: writable)
#    restores every value exactly;
#  - RT kernel threads (ksoftirqd, threaded IRQs, ktimers where the kernel
#    has them) are in the snapshot with their policies.
# Latency under TCG is emulator noise: nothing here looks at it.
. "$(dirname "$0")/../integration/lib.sh"
require_root
# Each check says when it ended (seconds into the script): where the CI
# step's time goes under TCG.
eval "lib_$(declare -f ok)"
ok() { lib_ok "$1" "$2 [${SECONDS} s]"; }
plan 12
cd "$WORK" || exit 1
ncpu=$(nproc)
last=$((ncpu - 1))

"$RTSOAK" run --duration 2s --interval 1ms -q -o basic.json
ok $? "a 2 s run on $ncpu CPUs"
[ "$(jget basic.json 'r["system"]["preempt"]["model"]')" = rt ]
ok $? "system.preempt.model is rt ($(jget basic.json 'r["system"]["preempt"]'))"
[ "$(jget basic.json '[c["status"] for c in r["checks"] if c["id"] == "preempt.model"][0]')" = pass ]
ok $? "the preempt.model check passes"
[ "$(jget basic.json 'r["system"]["numa_nodes"]')" = 0-1 ]
ok $? "the snapshot has NUMA nodes 0-1 ($(jget basic.json 'r["system"]["numa_nodes"]'))"

# Recorders on their CPU's node: a run on the first and the last CPU (one
# in each node), its anonymous mappings with a bind policy, read while it
# runs (each probe thread allocates its own once it is pinned).
"$RTSOAK" run --cpus "0,$last" --probes timer --duration 60s -q -o numa.json &
pid=$!
node_of() { basename "$(ls -d /sys/devices/system/cpu/cpu"$1"/node* | head -1)" | sed 's/node//'; }
n0=$(node_of 0) nl=$(node_of "$last")
deadline=$((SECONDS + 60))
got=
while [ $SECONDS -lt $deadline ]; do
	got=$(grep -oE 'bind:[0-9]+ .*' "/proc/$pid/numa_maps" 2>/dev/null | awk '{
		split($1, b, ":"); ok = 1; pages = 0
		for (i = 2; i <= NF; i++) if ($i ~ /^N[0-9]+=/) {
			split(substr($i, 2), nv, "="); pages += nv[2]
			if (nv[1] != b[2]) ok = 0
		}
		if (pages) print b[2] ":" ok }' | sort -u | tr '\n' ' ')
	# "NODE:1" for each bound mapping whose pages are all on NODE
	case " $got " in *" $n0:1 "*) case " $got " in *" $nl:1 "*) break ;; esac ;; esac
	sleep 0.5
done
kill -INT "$pid" 2>/dev/null
wait "$pid"
rc=$?
case " $got " in *" $n0:1 "*) case " $got " in *" $nl:1 "*) ! echo "$got" | grep -q ":0" ;; *) false ;; esac ;; *) false ;; esac
ok $? "recorders bound to node $n0 (cpu 0) and node $nl (cpu $last), every page on its node (node ok: $got)"
[ "$rc" -eq 0 ] && validate numa.json
ok $? "SIGINT ends that run with a valid report (rc $rc)"

"$RTSOAK" run --probes net --cpus 0-1 --duration 2s -q -o net.json
ok $? "net probe on CPUs 0-1 of $ncpu"
k=$(jget net.json '[(x["counters"]["sender_cpu"], x["counters"]["sender_on_measured_cpu"]) for x in r["results"] if x["probe"] == "net" and x["cpu"] == 0][0]')
[ "$(jget net.json '[x["counters"]["sender_cpu"] not in (0, 1) and x["counters"]["sender_on_measured_cpu"] == 0 for x in r["results"] if x["probe"] == "net" and x["cpu"] == 0][0]')" = true ]
ok $? "the net sender runs off the measured CPUs (sender_cpu, on_measured: $k)"

# cpu_partial on every cache: the pre-sheaves SLUB of the reference case.
# Merged caches appear under several names (symlinks): one file each.
# Builtins and one process for all the files, not one per file: under TCG
# each process costs ~0.1 s, and there are ~300 names.
snap() { for f in /sys/kernel/slab/*/cpu_partial; do read -r v <"$f"; printf '%s %s\n' "$f" "$v"; done; }
snap >before.txt
n=$(realpath /sys/kernel/slab/*/cpu_partial | sort -u | tee files.txt | wc -l)
# the mode, not [ -w ] (root may write anything that test asks about)
nw=$(xargs stat -c %A <files.txt | grep -c '^..w')
[ "$n" -ge 50 ] && [ "$nw" -eq "$n" ]
ok $? "$n slab caches ($(wc -l <before.txt) names), every cpu_partial writable ($nw)"
"$RTSOAK" ab --set '/sys/kernel/slab/*/cpu_partial=0' --rounds 1 --round-duration 1s --warmup 0 \
	--settle 0 --probes timer --cpus 0 -q -o ab.json
rc=$?
snap >after.txt
[ "$rc" -eq 0 ] && same_bytes before.txt after.txt
ok $? "ab --set cpu_partial=0 on all $n caches: exit $rc, every value restored exactly"
[ "$(jget ab.json 'len([t for t in r["tweaks"] if t["path"].endswith("/cpu_partial")])')" = "$n" ]
ok $? "the report lists $n cpu_partial tweaks"

# RT kernel threads in the snapshot: ksoftirqd per CPU; threaded IRQs (irq/N-name, FIFO);
# ktimers/N (FIFO) where this kernel has them.
kt=$(jget basic.json 'sorted({(k["comm"].split("/")[0], k["policy"]) for k in r["system"]["kthreads"]})')
ktimers=False
grep -qs '^ktimers/' /proc/[0-9]*/comm && ktimers=True
jget basic.json "any(k['comm'] == 'ksoftirqd/0' for k in r['system']['kthreads']) and any(k['comm'].startswith('irq/') and k['policy'] == 'fifo' for k in r['system']['kthreads']) and (not $ktimers or any(k['comm'] == 'ktimers/0' and k['policy'] == 'fifo' for k in r['system']['kthreads']))" | grep -q true
ok $? "the snapshot has ksoftirqd/0, FIFO irq/ threads and (kernel has them: $ktimers) ktimers/0 ($kt)"

# Not here: --trace.  Enabling trace events in this guest under multi-threaded TCG can
# freeze it (every vCPU spinning, nothing on the console: seen in CI, and reproduced by
# a shell loop without rtsoak); check_vm.sh's job "trace" runs vm_trace.sh and
# trace_attrib.sh under single-threaded TCG, where they run through.
done_testing
