#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/fleet.sh: time of the fleet view over many reports of long runs.
#
# What it measures
#   `rtsoak report *.json --text` and `rtsoak report *.json --html OUT` (the
#   fleet view, issue 18: "scales to 200 reports of 2-hour runs in a few
#   seconds") over $REPORTS reports (default 200) that look like $HOURS-hour
#   runs (default 2) on $CPUS CPUs (default 4): the median wall time of
#   $ROUNDS runs each (default 3), with user+system seconds and peak RSS of
#   the median run (ru_maxrss from /usr/bin/time -f %M).  Prints the number
#   of reports, their total size in MB and the seconds.
#
# How the reports are made
#   One real run (`rtsoak run --duration 2s --cpus 0 --probes timer -q`, as
#   root) is the template.  python3 then makes each copy a long run: its
#   timer result on CPU 0 is cloned to CPUs 0..$CPUS-1; each CPU's series
#   gets $HOURS x 3600 one-second intervals (count per interval the real
#   rate, interval maxima drawn log-normally around the real p50..p99, times
#   a per-report factor of 1..30 so the reports differ) and a spike log of
#   $SPIKES spikes above the real threshold at random times; the results'
#   count and every histogram bucket are multiplied by the run's length over the
#   template's (the same shape, a long run's counts), max_ns is the largest
#   interval maximum, duration_ns the run's length; hostname rig-NNN and a
#   machine id per copy.  What the fleet view reads of a report is all
#   there, and the series and spikes are what makes a long run's file big.
#
# Usage: [RTSOAK=build/rtsoak] [REPORTS=200] [HOURS=2] [CPUS=4] [SPIKES=500]
#        [ROUNDS=3] bench/fleet.sh        (as root, for the template run)
set -u
ME=fleet.sh
. "$(dirname "$0")/lib.sh"
find_rtsoak
[[ -x /usr/bin/time ]] || missing "needs /usr/bin/time (Debian package time)"
[[ $(id -u) -eq 0 ]] || missing "needs root for the template run (SCHED_FIFO)"
: "${REPORTS:=200}" "${HOURS:=2}" "${CPUS:=4}" "${SPIKES:=500}" "${ROUNDS:=3}"
: "${PYTHON3:=python3}"
TMP=$(mktemp -d /tmp/rtsoak-fleet.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

"$RTSOAK" run --duration 2s --cpus 0 --probes timer -q -o "$TMP/template.json" ||
	die "the template run failed"
mkdir "$TMP/r"
"$PYTHON3" - "$TMP/template.json" "$TMP/r" "$REPORTS" "$HOURS" "$CPUS" "$SPIKES" <<'EOF' ||
import copy, hashlib, json, math, random, sys
src, out, n, hours, cpus, spikes = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
base = json.load(open(src))
secs = hours * 3600
res0 = next(r for r in base["results"] if r["probe"] == "timer" and r["phase"] == "all")
ser0 = next(s for s in base["series"] if s["probe"] == "timer")
K = max(1, round(secs * 10**9 / base["run"]["duration_ns"]))  # the run's length over the template's
total = res0["count"] * K
per = [total // secs] * secs
per[0] += total - sum(per)
thr = ser0["spike_log"]["threshold_ns"] or res0["p99_9_ns"]
mu = math.log(res0["p50_ns"])
sigma = max(0.1, (math.log(res0["p99_ns"]) - mu) / 2.33)
for i in range(n):
    rnd = random.Random(i)
    factor = 1 + 29 * rnd.random() ** 3
    r = copy.deepcopy(base)
    r["system"]["hostname"] = "rig-%03d" % i
    r["system"]["machine"]["machine_id_sha256"] = hashlib.sha256(b"%d" % i).hexdigest()
    r["run"]["duration_ns"] = secs * 10**9
    r["results"], r["series"] = [], []
    for cpu in range(cpus):
        mx = [int(rnd.lognormvariate(mu, sigma) * factor) for _ in range(secs)]
        t = sorted(rnd.randrange(secs * 10**9) for _ in range(spikes))
        lat = [int(thr * (1 + rnd.expovariate(1.0)) * factor) for _ in range(spikes)]
        sp = [0] * secs
        for k, (tt, ll) in enumerate(zip(t, lat)):
            sp[tt // 10**9] += 1
            mx[tt // 10**9] = max(mx[tt // 10**9], ll)
        x = copy.deepcopy(res0)
        x["cpu"] = cpu
        x["count"] = total
        x["histogram"] = [[lo, hi, c * K] for lo, hi, c in res0["histogram"]]
        top = max(range(secs), key=mx.__getitem__)
        x["max_ns"] = max(mx[top], x["p99_999_ns"])
        x["max_at_ns"] = top * 10**9
        r["results"].append(x)
        s = copy.deepcopy(ser0)
        s["cpu"] = cpu
        s["intervals"] = {"n": secs, "count": per, "max_ns": mx, "spikes": sp,
                          "missed": [0] * secs}
        s["spike_log"].update(threshold_ns=thr, total=spikes, logged=spikes, t_ns=t,
                              latency_ns=lat, phase=[0] * spikes)
        r["series"].append(s)
    for a in r["aggregates"]:
        a["count"] = total * cpus
        a["histogram"] = [[lo, hi, c * K * cpus] for lo, hi, c in res0["histogram"]]
        a["max_ns"] = max(x["max_ns"] for x in r["results"])
    json.dump(r, open("%s/run-%03d.json" % (out, i), "w"), separators=(",", ":"))
EOF
	die "making the reports failed"
bytes=$(cat "$TMP"/r/*.json | wc -c)
"$RTSOAK" report "$TMP"/r/run-000.json >/dev/null 2>"$TMP/err" ||
	die "rtsoak does not read the made reports: $(head -1 "$TMP/err")"
printf "reports: %d of %d h on %d CPUs, %.1f MB\n" "$REPORTS" "$HOURS" "$CPUS" \
	"$(echo "$bytes / 1000000" | bc -l)"

# measure ARGS...: "wall cpu rss_kib" of one run of rtsoak report ARGS.
measure() {
	/usr/bin/time -o "$TMP/t" -f "%e %U %S %M" "$RTSOAK" report "$@" >/dev/null 2>"$TMP/err"
	local rc=$?
	[[ $rc -eq 0 ]] || die "rtsoak report $* exited $rc: $(head -1 "$TMP/err")"
	awk '{ printf "%.2f %.2f %d\n", $1, $2 + $3, $4 }' "$TMP/t"
}

printf "%-8s %8s %8s %12s\n" view wall_s cpu_s peak_KiB
for view in text html; do
	args=(--text)
	[[ $view == html ]] && args=(--html "$TMP/fleet.html")
	for ((k = 0; k < ROUNDS; k++)); do
		measure "$TMP"/r/*.json "${args[@]}"
	done | sort -n | sed -n "$(((ROUNDS + 1) / 2))p" >"$TMP/median"
	read -r w c m <"$TMP/median"
	printf "%-8s %8s %8s %12s\n" "$view" "$w" "$c" "$m"
done
