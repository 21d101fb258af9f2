#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The command line ignores nothing and --record copies nothing private (issue
# 12, items 9 and 14; the man page, SAFETY, Command line): an argument or
# option that would change nothing, an empty element in a comma list, a
# private /proc file and a glob that expands too far each exit 2 at once with
# one line on stderr, nothing on stdout and no report file.
. "$(dirname "$0")/lib.sh"
require_root

# NAME|ARGS|WANT: ARGS split at spaces (no globbing), WANT a fixed string the
# one line holds.  Runs get --duration 60s where the case is not about the
# duration.  A refusal is "at once" against references measured here, not a
# wall-clock bound (a 2-CPU machine running other tests and sanitizers):
# less than twice a whole one-sample run plus walk_factor (lib.sh: 10, 40
# under ASan) times a walk of as many entries of /sys as a glob may read (the
# glob bomb's case reads that many; its glob, pattern by pattern, took 3.4 to
# 3.8 times find's walk).
cases=(
	"loads extra|loads extra|unexpected argument 'extra'"
	"loads unknown option|loads --bogus|unexpected argument '--bogus'"
	"probes extra|probes extra|unexpected argument 'extra'"
	"version extra|version extra|unexpected argument 'extra'"
	"help extra|help extra|unexpected argument 'extra'"
	"sysinfo extra|sysinfo extra|unexpected argument 'extra'"
	"reflect extra|reflect extra|unexpected argument 'extra'"
	"restore two journals|restore J extra|expected one journal"
	"restore an option|restore --force|unknown option '--force'"
	"report no file|report|expected a report file"
	"report two missing files (the fleet view)|report a.json b.json|a.json: cannot open"
	"compare three files|compare a.json b.json c.json|expected two files"
	"probes trailing comma|run --probes timer, --duration 60s|--probes"
	"probes leading comma|run --probes ,timer --duration 60s|--probes"
	"probes doubled comma|run --probes timer,,net --duration 60s|--probes"
	"loads trailing comma|run --probes timer --loads cpu, --duration 60s|--loads"
	"loads leading comma|run --probes timer --loads ,cpu --duration 60s|--loads"
	"loads doubled comma|run --probes timer --loads cpu,,disk --duration 60s|--loads"
	"load-cpus trailing comma|run --probes timer --loads cpu --load-cpus 0, --duration 60s|--load-cpus"
	"housekeeping trailing comma|run --probes timer --housekeeping 0, --duration 60s|--housekeeping"
	"cpus trailing comma|run --probes timer --cpus 0, --duration 60s|--cpus"
	"duration with loops|run --probes timer --duration 10s --loops 5|--loops"
	"loops with duration|run --probes timer --loops 100000 --duration 60s|--duration"
	"load-cpus without loads|run --probes timer --load-cpus 0 --duration 60s|--load-cpus"
	"workdir without loads|run --probes timer --workdir /tmp --duration 60s|--workdir"
	"phase-duration without rotate|run --probes timer --loads cpu --phase-duration 1s --duration 60s|--phase-duration"
	"checkpoint on stdout|run --probes timer --checkpoint 5s -o - --duration 60s|--checkpoint"
	"record another process's environ|run --probes timer --record /proc/1/environ --duration 60s|/proc/1/environ"
	"record own environ|run --probes timer --record /proc/self/environ --duration 60s|/proc/self/environ"
	"record a thread's environ|run --probes timer --record /proc/1/task/1/environ --duration 60s|environ"
	"record another process's cmdline|run --probes timer --record /proc/1/cmdline --duration 60s|/proc/1/cmdline"
	"record every cmdline|run --probes timer --record /proc/[0-9]*/cmdline --duration 60s|cmdline"
	"record memory maps|run --probes timer --record /proc/1/maps --duration 60s|/proc/1/maps"
	"record smaps|run --probes timer --record /proc/self/smaps --duration 60s|smaps"
	"record kallsyms|run --probes timer --record /proc/kallsyms --duration 60s|/proc/kallsyms"
	"record keys|run --probes timer --record /proc/keys --duration 60s|/proc/keys"
	"record every process's stat (ASLR addresses)|run --probes timer --record /proc/[0-9]*/stat --duration 60s|stat"
	"record a thread's stat|run --probes timer --record /proc/self/task/*/stat --duration 60s|stat"
	"record own stat|run --probes timer --record /proc/self/stat --duration 60s|/proc/self/stat"
	"record wchan|run --probes timer --record /proc/1/wchan --duration 60s|/proc/1/wchan"
	"record timers|run --probes timer --record /proc/1/timers --duration 60s|/proc/1/timers"
	"record a socket table|run --probes timer --record /proc/net/tcp --duration 60s|/proc/net/tcp"
	"record a process's socket table|run --probes timer --record /proc/1/net/unix --duration 60s|/proc/1/net/unix"
	"record a glob bomb|run --probes timer --record /sys/*/*/*/*/*/*/*/* --duration 60s|100000"
)
# A sysctl that only root may read (a secret key, 0600) where this kernel has one.
key=/proc/sys/net/ipv4/tcp_fastopen_key
[ -e $key ] && [ "$(stat -c %a $key)" = 600 ] &&
	cases+=("record a root-only sysctl|run --probes timer --record $key --duration 60s|$key")

# A world-readable file in a directory only root may search (issue 28).
hid=/proc/tty/driver/serial
[ -e $hid ] && [ "$(stat -c %a /proc/tty/driver)" = 500 ] && [ "$(stat -c %a $hid)" = 444 ] &&
	cases+=("record a file its directory hides|run --probes timer --record $hid --duration 60s|/proc/tty/driver is 0500")
plan $((${#cases[@]} * 5 + 5))
cd "$WORK" || exit 1
ref=$(ref_run_ms)
walk=$(walk_ref_ms)
bound=$((2 * ref + $(walk_factor) * walk))
set -f # the glob cases must reach rtsoak unexpanded
for c in "${cases[@]}"; do
	IFS='|' read -r name args want <<<"$c"
	find "$WORK" -mindepth 1 -delete # (set -f: no glob here)
	# Runs write into $WORK, where nothing else is.
	case "$args" in run*) case "$args" in *" -o "*) ;; *) args="$args -o r.json" ;; esac ;; esac
	t0=$(date +%s%N)
	# shellcheck disable=SC2086
	timeout 30 "$RTSOAK" $args >out 2>err
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	ok $((rc != 2)) "$name: exit 2 (got $rc)"
	[ "$(grep -c . err)" -eq 1 ] && grep -q '^rtsoak: ' err && grep -qF -- "$want" err
	ok $? "$name: one line naming '$want' ($(head -c 300 err))"
	[ ! -s out ]
	ok $? "$name: nothing on standard output ($(wc -c <out) bytes)"
	[ -z "$(find . -mindepth 1 ! -name out ! -name err)" ]
	ok $? "$name: no report or other file left"
	# Refused before anything is measured (60 s) or globbed for long
	# (the unbounded glob bomb took minutes).
	[ "$ref" -gt 0 ] && [ "$walk" -gt 0 ] && [ "$ms" -lt "$bound" ]
	ok $? "$name: refused at once (${ms} ms; under $bound: a one-sample run $ref ms, a walk $walk ms)"
done
set +f

# What a glob may still record: world-readable files; those only root may read
# are left out, with one warning line, and the run goes on.
rm -rf "${WORK:?}"/*
"$RTSOAK" run --probes timer --loops 5 --cpus 0 -q -o vm.json --record '/proc/sys/vm/*' >out 2>err
ok $? "--record '/proc/sys/vm/*' runs ($(head -c 300 err))"
"$PYTHON3" - vm.json <<'PY'
import json, os, stat, sys
rec = json.load(open(sys.argv[1]))["system"]["recorded"]
vm = "/proc/sys/vm/"
private = [vm + f for f in os.listdir(vm)
           if os.stat(vm + f).st_mode & 0o440 and not os.stat(vm + f).st_mode & stat.S_IROTH]
public = [vm + f for f in os.listdir(vm) if os.stat(vm + f).st_mode & stat.S_IROTH]
bad = [p for p in private if p in rec]
missing = [p for p in public if p not in rec]
print("# private: %s; recorded anyway: %s; public missing: %s" % (private, bad, missing))
sys.exit(1 if bad or missing or not public else 0)
PY
ok $? "files other users may not read are left out, every other one is recorded"
n=$(find /proc/sys/vm -maxdepth 1 -type f -perm /0440 ! -perm -0004 | wc -l)
if [ "$n" -gt 0 ]; then
	[ "$(grep -c . err)" -eq 1 ] && grep -q "warning: '/proc/sys/vm/\*': $n file" err
	ok $? "one warning line says $n files were left out ($(head -c 300 err))"
else
	[ ! -s err ]
	ok $? "no private file under /proc/sys/vm here: no warning ($(head -c 300 err))"
fi
# The report holds nothing private now: it stays readable by all (SAFETY).
[ "$(stat -c %a vm.json)" = 644 ]
ok $? "the report is 0644 ($(stat -c %a vm.json))"
# The limits leave room for real globs: every CPU's topology and every process's status
# (stat holds addresses: refused above).
"$RTSOAK" run --probes timer --loops 1 -q -o idle.json \
	--record '/sys/devices/system/cpu/cpu*/topology/*' --record '/proc/[0-9]*/status' 2>err
ok $? "globs under the limits run ($(head -c 300 err))"
done_testing
