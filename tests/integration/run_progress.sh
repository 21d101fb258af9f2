#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live view: on a terminal one status line redrawn in place (elapsed,
# remaining, samples, missed, worst per probe); --quiet silences it; not on
# a terminal, no status line (a log line every 10 minutes instead).
. "$(dirname "$0")/lib.sh"
require_root
command -v script >/dev/null || skip_all "script (util-linux) is missing: no pseudo-terminal to test with"

plan 5
cd "$WORK" || exit 1
script -qec "'$RTSOAK' run --duration 3s --probes timer -o tty.json" tty.out >/dev/null 2>&1
ok $? "run on a pseudo-terminal exits 0"
grep -a -q $'\r''rtsoak: 0:00:0[12], 0:00:0[012] left, [0-9]* samples, [0-9]* missed, timer max [0-9.]* us (cpu [0-9]*)' tty.out
ok $? "the status line shows elapsed, remaining, samples, missed and the worst timer sample ($(tr '\r' '\n' <tty.out | grep -a 'samples' | head -1))"
[ "$(grep -a -o 'samples' tty.out | wc -l)" -ge 2 ]
ok $? "it is redrawn (about once a second)"
script -qec "'$RTSOAK' run --duration 2s --probes timer -q -o q.json" q.out >/dev/null 2>&1
! grep -a -q "samples" q.out
ok $? "--quiet: no status line"
"$RTSOAK" run --duration 2s --probes timer -o pipe.json >/dev/null 2>pipe.err
! grep -q "samples" pipe.err
ok $? "not a terminal: no status line in a short run"
done_testing
