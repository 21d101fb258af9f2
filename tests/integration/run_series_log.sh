#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The checkpoints' series log (issue 20, src/model/serieslog.h): a
# checkpoint copied while the run goes on reads back, merged with its log,
# as exactly the start of the final report's series (every column and the
# spike log, value for value) and as one self-contained report that writes
# back byte for byte; a torn log is read up to its last whole record with a
# warning; a corrupt, missing, linked or foreign log is refused in one line
# with exit 2; a log name taken by a directory is refused before the run;
# the finished run leaves no log behind.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema

plan 11
cd "$WORK" || exit 1

mkdir run cp
"$RTSOAK" run --probes timer --duration 8s --checkpoint 500ms --series-interval 1ms \
	--spike-threshold 30us -q -o run/r.json 2>/dev/null &
pid=$!
# Once the log holds a few records (the summary first: the log can only be ahead of it).
wait_until 60 eval '[ -s run/r.json.series ] && [ "$(stat -c %s run/r.json.series)" -gt 20000 ]'
sleep 1
cp run/r.json cp/r.json && cp run/r.json.series cp/r.json.series
wait $pid
ok $? "the run with a checkpoint every 500 ms ends well"
[ -s run/r.json ] && [ ! -e run/r.json.series ] && [ ! -e run/r.json.series.1 ]
ok $? "the final report replaces the checkpoint and its series log is gone ($(ls run | tr '\n' ' '))"

"$RTSOAK" report cp/r.json --json merged.json 2>err && validate cp/r.json merged.json
ok $? "the copied checkpoint merges into a schema-valid report ($(head -c 200 err))"
# Value for value: the merged series are the start of the final ones.
"$PYTHON3" - merged.json run/r.json <<'EOF' 2>&1 | sed 's/^/# /'
import json, sys
m, f = (json.load(open(p)) for p in sys.argv[1:3])
bad = []
if "series_log" in m or len(m["series"]) != len(f["series"]):
    bad.append("not one self-contained report of the same series")
for a, b in zip(m["series"], f["series"]):
    n, k = a["intervals"]["n"], a["spike_log"]["logged"]
    if not 0 < n <= b["intervals"]["n"]:
        bad.append("%s cpu %d: %d intervals of %d" % (a["probe"], a["cpu"], n, b["intervals"]["n"]))
    # the last merged interval may still have grown in the run: all but it, exactly
    for c in ("count", "max_ns", "spikes", "missed"):
        if a["intervals"][c][:n - 1] != b["intervals"][c][:n - 1]:
            bad.append("%s cpu %d: column %s differs" % (a["probe"], a["cpu"], c))
    for c in ("t_ns", "latency_ns", "phase"):
        if a["spike_log"][c] != b["spike_log"][c][:k]:
            bad.append("%s cpu %d: spike log %s differs" % (a["probe"], a["cpu"], c))
print("; ".join(bad) or "%d series, %s intervals merged" % (
    len(m["series"]), [s["intervals"]["n"] for s in m["series"]]))
sys.exit(bool(bad))
EOF
ok ${PIPESTATUS[0]} "merged, its series are value for value the start of the final report's"
"$RTSOAK" report merged.json --json merged2.json && cmp -s merged.json merged2.json
ok $? "the merged report writes back byte for byte"

# Torn: the log cut in its last record.
cp -r cp torn
truncate -s -5 torn/r.json.series
"$RTSOAK" report torn/r.json --json torn.json 2>err &&
	[ "$(jget torn.json 'any("incomplete record at its end" in w for w in r["run"]["warnings"])')" = true ] &&
	[ "$(jget torn.json 'sum(s["intervals"]["n"] for s in r["series"])')" -lt \
		"$(jget merged.json 'sum(s["intervals"]["n"] for s in r["series"])')" ]
ok $? "a log cut short reads up to its last whole record, and says so ($(head -c 200 err))"

# Corrupt: a byte inside the first record, which others follow.
cp -r cp bad
printf '\xff' | dd of=bad/r.json.series bs=1 seek=40 conv=notrunc 2>/dev/null
"$RTSOAK" report bad/r.json >out 2>err
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q "series log 'r.json.series': the record at byte 16 is corrupt" err
ok $? "a corrupt record before the end: exit 2, one line ($rc: $(head -c 200 err))"

# Missing, a symbolic link, another run's.
mkdir gone link other
cp cp/r.json gone/
cp cp/r.json link/ && ln -s "$PWD/cp/r.json.series" link/r.json.series
cp cp/r.json other/
"$RTSOAK" run --probes timer --duration 2s --checkpoint 200ms -q -o other/o.json 2>/dev/null &
opid=$!
wait_until 60 eval '[ -s other/o.json.series ]'
cp other/o.json.series other/r.json.series
wait $opid
msgs="" fails=0
for d in gone link other; do
	"$RTSOAK" report $d/r.json >out 2>err
	rc=$?
	msgs="$msgs [$d: $rc: $(head -c 160 err)]"
	[ $rc -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] || fails=$((fails + 1))
done
[ $fails -eq 0 ] && grep -q "gone: 2: .*missing" <<<"$msgs" &&
	grep -q "link: 2: .*a symbolic link: not followed" <<<"$msgs" && grep -q "other: 2: .*belongs to another run" <<<"$msgs"
ok $? "a missing log, a symbolic link, another run's log: each exit 2, one line ($msgs)"

# A directory where the log would go: refused before the run, in less time
# than a whole one-sample run (the reference, measured here).
mkdir -p dir/r.json.series
ref=$(ref_run_ms)
t0=$(date +%s%N)
"$RTSOAK" run --duration 30s -q -o dir/r.json 2>err
rc=$?
el=$((($(date +%s%N) - t0) / 1000000))
[ $rc -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q "its checkpoints' series log) exists and is not a regular file" err &&
	[ $el -lt "$ref" ] && [ ! -e dir/r.json ]
ok $? "a directory named like the series log: exit 2 before the run, one line ($rc, ${el} ms, a one-sample run $ref ms: $(head -c 200 err))"
# ... and with --checkpoint 0 too: SIGUSR1 can still ask for one.
"$RTSOAK" run --duration 30s --checkpoint 0 -q -o dir/r.json 2>err
[ $? -eq 2 ] && [ ! -e dir/r.json ]
ok $? "the same with --checkpoint 0 (SIGUSR1 still checkpoints)"
# A stray non-directory node is left alone too.
mkdir d2 && mkfifo d2/r.json.series
"$RTSOAK" run --duration 30s -q -o d2/r.json 2>err
[ $? -eq 2 ] && [ -p d2/r.json.series ]
ok $? "a FIFO named like the series log: refused, left as it was"
done_testing
