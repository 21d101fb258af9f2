#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rtsoak run --trace with a task whose name is not valid UTF-8 (issue 28):
# a binary named "ääääääää" (16 bytes) has the comm "äääääää" plus half of
# the last "ä", cut by the kernel at 15 bytes.  It runs in bursts at FIFO
# one above the probes on the measured CPU, so that the probe's spikes are
# attributed to it.  Its name must reach the report as valid UTF-8 (the
# half character masked as '?'), the cause must be in the causes table (it
# was silently dropped: json_pack refused the name), the counts must add
# up, and report must read the file (it refused it, exit 2).
. "$(dirname "$0")/lib.sh"
require_root
command -v chrt >/dev/null || skip_all "needs chrt(1)"
trace_test_ns "$@"
T=/sys/kernel/tracing
plan 6
cd "$WORK" || exit 1
[ "$(stat -f -c %T $T)" = tracefs ] || mount -t tracefs nodev $T || exit 1

# The burster (lib.sh) under the 16-byte name.
name=$(printf '\xc3\xa4%.0s' 1 2 3 4 5 6 7 8)
start_burster "$name"
comm=$(od -An -tx1 "/proc/$burster/comm" | tr -d ' \n')
diag "the burster's comm: $comm"

"$RTSOAK" run --trace --probes timer --cpus 1 --interval 100us --duration 5s \
	--spike-threshold 2ms -q -o names.json 2>names.err
ok $? "run --trace with the burster exits 0 ($(head -c 300 names.err))"
kill $burster 2>/dev/null
wait $burster 2>/dev/null
validate names.json
ok $? "its report is schema-valid"
# the comm as the kernel cut it: 7 "ä" and half of the 8th
[ "$comm" = c3a4c3a4c3a4c3a4c3a4c3a4c3a4c30a ] &&
	[ "$(jget names.json '[c["cause"] for x in r["attribution"]["series"] if x["cpu"] == 1 and x["phase"] == "all" for c in x["causes"] if c["cause"].startswith("task:\u00e4")]')" = '["task:\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4? (FIFO 96)"]' ]
ok $? "the burster is a cause, its name valid UTF-8 with the cut character masked ($(jget names.json '[(c["cause"], c["spikes"]) for x in r["attribution"]["series"] if x["cpu"] == 1 and x["phase"] == "all" for c in x["causes"]]' 2>&1 | head -c 300))"
[ "$(jget names.json 'all(x["attributed"] == len(x["spike_causes"]) == sum(c["spikes"] for c in x["causes"]) and x["spikes"] == x["attributed"] + sum(x["not_attributed"].values()) for x in r["attribution"]["series"]) and any(x["attributed"] for x in r["attribution"]["series"])')" = true ]
ok $? "the counts add up: spikes = attributed + not attributed, attributed = spike_causes = the causes' spikes"
[ "$(jget names.json '[c["name"] for x in r["attribution"]["series"] for t in x["top"] for c in t["contributors"] if c["name"].startswith("\u00e4")][:1]')" = '["\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4?"]' ]
ok $? "the worst spikes name it as their contributor, masked the same way"
"$RTSOAK" report names.json >names.txt 2>names.rerr
ok $? "report reads the file ($(head -c 300 names.rerr))"
done_testing
