#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/vm-compare.sh: rtsoak, cyclictest and rtla timerlat on the same CPUs,
# side by side (issue 17).
#
# By default inside the PREEMPT_RT test guest (tests/vm: qemu TCG here, so
# the figures are emulator noise: informational only, they show that the
# three tools run and agree on what they measure, not what RT hardware
# does).  With INSIDE=1 it runs on this machine instead: the same script is
# what a user runs on real RT hardware.  Each tool runs for DURATION (10s)
# at INTERVAL_US (1000) on CPUS (1) at SCHED_FIFO PRIO (95), one after the
# other, idle otherwise; printed: count, p50, p99, max in us of each.
# Needs root.  Settings: DURATION, INTERVAL_US, CPUS, PRIO, VCPUS (4),
# INSIDE, RTSOAK.
ME=vm-compare
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
find_rtsoak
[[ $(id -u) -eq 0 ]] || missing "needs root"
DURATION=${DURATION:-10s}
INTERVAL_US=${INTERVAL_US:-1000}
CPUS=${CPUS:-1}
PRIO=${PRIO:-95}
VCPUS=${VCPUS:-4}

if [[ -z ${INSIDE:-} ]]; then
	command -v qemu-system-x86_64 >/dev/null || missing "qemu-system-x86_64 is not installed"
	build=$(cd "$(dirname "$RTSOAK")" && pwd)
	guest=$(bash "$top/tests/vm/guest_build.sh" "$build/vm-cache") || die "no guest (tests/vm/guest_build.sh)"
	job=$(mktemp -d /tmp/vm-compare.XXXXXX) || die "mktemp"
	trap 'rm -rf "$job"' EXIT
	cp "$RTSOAK" "$job/rtsoak" || die "cp"
	mkdir "$job/src" && cp -r "$top/bench" "$job/src/" || die "cp"
	cat >"$job/job.sh" <<EOF
#!/bin/bash
INSIDE=1 RTSOAK=/job/rtsoak DURATION=$DURATION INTERVAL_US=$INTERVAL_US CPUS=$CPUS PRIO=$PRIO \
	bash /job/src/bench/vm-compare.sh
EOF
	chmod +x "$job/job.sh"
	bash "$top/tests/vm/guest_run.sh" "$guest" "$job" "$VCPUS" 900
	rc=$?
	cat "$job/console.log"
	exit $rc
fi

secs=$(python3 -c 'import re,sys; m=re.fullmatch(r"(\d+)(s|m)?", sys.argv[1]); print(int(m[1]) * (60 if m[2] == "m" else 1))' "$DURATION") ||
	die "DURATION=$DURATION: give seconds (10s) or minutes (1m)"
work=$(mktemp -d /tmp/vm-compare.XXXXXX) || die "mktemp"
echo "# $(uname -r), $(nproc) CPUs, nodes $(cat /sys/devices/system/node/online 2>/dev/null); CPUs $CPUS, ${INTERVAL_US} us, $DURATION each, FIFO $PRIO"
printf '%-22s %10s %10s %10s %10s\n' tool count p50_us p99_us max_us

"$RTSOAK" run --probes timer --cpus "$CPUS" --interval "${INTERVAL_US}us" --priority "$PRIO" \
	--duration "$DURATION" --warmup 0 -q -o "$work/rtsoak.json" || die "rtsoak failed"
python3 - "$work/rtsoak.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for x in r["aggregates"]:
    if x["probe"] == "timer" and x["phase"] == "all":
        print("%-22s %10d %10.1f %10.1f %10.1f" % ("rtsoak timer", x["count"], x["p50_ns"] / 1e3, x["p99_ns"] / 1e3, x["max_ns"] / 1e3))
PY

if command -v cyclictest >/dev/null; then
	loops=$((secs * 1000000 / INTERVAL_US))
	cyclictest -q -m -p "$PRIO" -i "$INTERVAL_US" -a "$CPUS" -t 1 -l "$loops" -h 100000 \
		--json="$work/ct.json" >/dev/null 2>"$work/ct.err" || die "cyclictest failed: $(head -c 200 "$work/ct.err")"
	"$RTSOAK" compare "$work/ct.json" "$work/rtsoak.json" --json "$work/cmp.json" >/dev/null 2>&1
	python3 - "$work/cmp.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
for m in c["matches"]:
    if m["cpu"] == "all":
        s = m["stats"]
        print("%-22s %10d %10.1f %10.1f %10.1f" % ("cyclictest", s["count"]["a"], s["p50"]["a"] / 1e3, s["p99"]["a"] / 1e3, s["max"]["a"] / 1e3))
PY
else
	echo "cyclictest: not installed (rt-tests)"
fi

if command -v rtla >/dev/null && rtla timerlat hist -h >/dev/null 2>&1; then
	# the kernel's timerlat thread (6.1's rtla has no user-space threads: -u)
	rtla timerlat hist -c "$CPUS" -P "f:$PRIO" -p "$INTERVAL_US" -d "$secs" -E 100000 --no-irq \
		>"$work/rtla.txt" 2>&1
	python3 - "$work/rtla.txt" <<'PY'
import re, sys
# "count:", "min:", "avg:", "max:" rows of rtla's histogram summary (us);
# the percentiles from its buckets (one row per us: "NNN  count ...").
rows, stats = [], {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 2 and f[0].isdigit():
        rows.append((int(f[0]), sum(int(v) for v in f[1:] if v.isdigit())))
    elif f and f[0].rstrip(":") in ("count", "max", "over") and len(f) > 1 and f[1].isdigit():
        stats[f[0].rstrip(":")] = sum(int(v) for v in f[1:] if v.isdigit())
n = sum(c for _, c in rows)
def pct(q):
    k, acc = q * n, 0
    for us, c in rows:
        acc += c
        if acc >= k:
            return us
    return float("nan")
if n:
    print("%-22s %10d %10.1f %10.1f %10.1f" % ("rtla timerlat (thread)", n, pct(0.5), pct(0.99), stats.get("max", float("nan"))))
else:
    print("rtla timerlat: no histogram (%s)" % open(sys.argv[1]).read()[:200].replace("\n", " "))
PY
else
	echo "rtla timerlat: not available here"
fi
rm -rf "$work"
