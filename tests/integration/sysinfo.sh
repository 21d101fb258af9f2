#!/bin/bash
# `rtsoak sysinfo` prints the snapshot as JSON that matches the schema's
# "system" object; --record adds the named files to a run's report.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema

plan 5
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
done_testing
