#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# lab_ab.sh (in the lab guest, check_lab.sh): the before/after use case
# against a known answer.  The module holds IRQs off 200 us every 10137 us
# on CPU 0 (the hold walks 137 us a period through the probe's 1 ms
# interval: every 2 s round meets ~40 deadlines in it, the worst of them
# within a few us of its start).  `rtsoak ab --set hold_us=0` must call B
# better, its max shift within 10 % of the 200 us hold; `--set hold_us=200`
# (a no-op) must not find a difference.  5 rounds a side: fewer than 4 can
# never reach p < 0.05 (the rank test's floor).
. "$(dirname "$0")/lib.sh"
plan 7
cd "$WORK" || exit 1
lab_module
hold=200

# verdict FILE: "VERDICT max-shift-ns" of timer CPU 0, B against A
verdict() {
	jget "$1" '" ".join(str(v) for m in r["ab"]["comparison"]["matches"] if m["probe"] == "timer" and m["cpu"] == 0 for v in [m["verdict"]] + [j["shift_ns"] for j in m["judged"] if j["statistic"] == "max"])'
}

lab_hold irq "$hold" 10137
"$RTSOAK" ab --set "$LAB_P/hold_us=0" --rounds 5 --round-duration 2s --probes timer --cpus 0 \
	-q -o ab.json 2>err
ok $? "ab --set hold_us=0: exit 0 ($(head -c 200 err))"
validate ab.json
ok $? "ab --set hold_us=0: the report is schema-valid"
read -r v shift <<<"$(verdict ab.json)"
[ "$v" = better ] && "$PYTHON3" -c "import sys; sys.exit(0 if abs(-float('$shift') - $hold * 1000) <= $hold * 100 else 1)"
ok $? "ab --set hold_us=0: B better, max shift ${shift} ns within 10 % of -$hold us"
[ "$(cat "$LAB_P/hold_us")" = "$hold" ]
ok $? "ab restored hold_us to $hold"

# The no-op's rounds are 4 s: a round's p99 is about the 20th of its ~40
# (2 s) hold-delayed deadlines, whose latencies lie on the lattice of the
# phases the hold visits in that round, ~5 us apart at 2 s, as large as the
# minimum effect (5 % of ~100 us); round after round that lattice shifts,
# and how it fell on the ABBA arms decided the no-op at 2 s (arm A's
# p99 5 us above B's in every round, in some boots: "better").  At 4 s the
# lattice is ~2.5 us, below the minimum effect.
"$RTSOAK" ab --set "$LAB_P/hold_us=$hold" --rounds 5 --round-duration 4s --probes timer --cpus 0 \
	-q -o noop.json 2>err
ok $? "ab --set hold_us=$hold (no-op): exit 0 ($(head -c 200 err))"
lab_off
read -r v shift <<<"$(verdict noop.json)"
[ "$v" = same ]
ok $? "ab no-op: verdict $v (max shift ${shift} ns), not better, worse or mixed"
[ "$(jget noop.json '[m["verdict"] for m in r["ab"]["comparison"]["matches"]]')" = '["same", "same"]' ]
ok $? "ab no-op: every result same"
done_testing
