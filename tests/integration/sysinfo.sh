#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `rtsoak sysinfo` prints the snapshot as JSON that matches the schema's
# "system" object; --record adds the named files to a run's report.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema

plan 6
cd "$WORK" || exit 1
"$RTSOAK" sysinfo >sys.json
ok $? "rtsoak sysinfo exits 0"
"$PYTHON3" - "$SCHEMA" sys.json <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator(schema["properties"]["system"]).validate(json.load(open(sys.argv[2])))
PY
ok $? "snapshot matches the schema's system object"
[ "$(jget sys.json 'r["cmdline"]')" = "$(cat /proc/cmdline)" ]
ok $? "snapshot records /proc/cmdline as it is"

"$RTSOAK" run --loops 10 --cpus 0 -q -o rec.json --record '/proc/sys/kernel/sched_rt_*' --record /proc/sys/kernel/ostype
ok $? "run with --record exits 0"
[ "$(jget rec.json 'sorted(r["system"]["recorded"].items())')" = "$("$PYTHON3" -c '
import json
p = ["/proc/sys/kernel/ostype", "/proc/sys/kernel/sched_rt_period_us", "/proc/sys/kernel/sched_rt_runtime_us"]
print(json.dumps(sorted((x, open(x).read().rstrip("\n")) for x in p)))')" ]
ok $? "--record globs expand and their contents are in system.recorded"
# which machine: the machine id only as a hash (checked against sha256sum),
# firmware names where readable, microcode and SMT siblings as the kernel says
want_id=$( [ -r /etc/machine-id ] && printf 'rtsoak machine id %s' "$(cat /etc/machine-id)" | sha256sum | cut -d' ' -f1)
want_mc=$(awk -F': *' '/^microcode/ { print $2; exit }' /proc/cpuinfo)
"$PYTHON3" - sys.json "${want_id:-null}" "${want_mc:-null}" <<'EOF'
import json, sys, glob, os
s = json.load(open(sys.argv[1]))
want_id, want_mc = [None if a == "null" else a for a in sys.argv[2:4]]
m = s["machine"]
sib = {os.path.basename(os.path.dirname(os.path.dirname(p)))[3:]: open(p).read().strip()
       for p in glob.glob("/sys/devices/system/cpu/cpu[0-9]*/topology/thread_siblings_list")}
online = s["cpus"]["online"]
problems = []
if m["machine_id_sha256"] != want_id:
    problems.append("machine id hash %r, want %r" % (m["machine_id_sha256"], want_id))
if want_id and open("/etc/machine-id").read().strip() in json.dumps(s):
    problems.append("the machine id itself is in the snapshot")
if s["microcode"] != want_mc:
    problems.append("microcode %r, want %r" % (s["microcode"], want_mc))
if any(s["smt"]["thread_siblings"].get(c) != sib[c] for c in sib):
    problems.append("siblings %r, want %r" % (s["smt"]["thread_siblings"], sib))
for p in problems:
    print("# " + p)
sys.exit(1 if problems else 0)
EOF
ok $? "machine: the id only as its salted SHA-256, microcode and SMT siblings as the kernel says"
done_testing
