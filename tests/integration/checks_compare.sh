#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# compare lists the tuning checks whose status changed between A and B (matched by id; a check
# on one side only listed as such): one line each in the text's "checks:" block (80 columns),
# a `checks` array in --json (docs/compare-schema.json), a table in --html; nothing for a
# report compared with itself, no comparison at all against a report from before the checks.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema

plan 11
cd "$WORK" || exit 1

"$RTSOAK" run --duration 1s --probes timer -q -o a.json 2>/dev/null && validate a.json &&
	[ "$(jget a.json 'len(r["checks"])')" -ge 3 ]
ok $? "a run with its checks"
# B: A's first check changes status (observed too), its second is gone, one is added.
"$PYTHON3" - a.json b.json old.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["checks"]
c[0]["status"] = "fail" if c[0]["status"] != "fail" else "warn"
c[0]["observed"] = "changed <b>" + "x" * 100
gone = c.pop(1)
c.append(dict(c[-1], id="zz.added", status="warn", observed="new one"))
json.dump(r, open(sys.argv[2], "w"), indent=1)
del r["checks"]
json.dump(r, open(sys.argv[3], "w"), indent=1)
PY
validate b.json
ok $? "B (edited A) is a valid report"
first=$(jget a.json 'r["checks"][0]["id"]')
sa=$(jget a.json 'r["checks"][0]["status"]')
sb=$(jget b.json 'r["checks"][0]["status"]')
second=$(jget a.json 'r["checks"][1]["id"]')

"$RTSOAK" compare a.json b.json --json ab.json >ab.txt
rc=$?
block=$(sed -n '/^checks: /,/^$/p' ab.txt)
echo "$block" | sed "s/^/# /"
[ $rc -le 1 ] && echo "$block" | grep -q '^checks: 3 changed status' &&
	[ "$(echo "$block" | grep -c '^  ')" -eq 3 ] &&
	echo "$block" | grep -q "^  $first *$sa -> $sb: .* -> changed <b>xxx" &&
	echo "$block" | grep -q "^  $second *only in A: " &&
	echo "$block" | grep -q '^  zz.added *only in B: warn: new one$'
ok $? "text: a line for the changed status, the check only in A, the one only in B"
[ -n "$block" ] && ! echo "$block" | awk 'length($0) > 80 { bad = 1 } END { exit !bad }'
ok $? "text: the checks block fits 80 columns"
"$PYTHON3" - "$top_srcdir/docs/compare-schema.json" ab.json <<'PY'
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
ok $? "--json: valid against docs/compare-schema.json"
got=$(jget ab.json '[(k["id"], k["a"] and k["a"]["status"], k["b"] and k["b"]["status"]) for k in r["checks"]]')
want=$("$PYTHON3" -c 'import json,sys; print(json.dumps([(sys.argv[1], sys.argv[2], sys.argv[3]), (sys.argv[4], sys.argv[5], None), ("zz.added", None, "warn")]))' \
	"$first" "$sa" "$sb" "$second" "$(jget a.json 'r["checks"][1]["status"]')")
[ "$got" = "$want" ] && [ "$(jget ab.json 'r["checks"][0]["b"]["observed"][:11]')" = "changed <b>" ]
ok $? "--json: the three entries, status and observed per side, null for the side without ($got)"
"$RTSOAK" compare a.json b.json --html ab.html >/dev/null
[ "$(grep -c '<tr data-check=' ab.html)" -eq 3 ] && grep -q 'changed &lt;b&gt;' ab.html &&
	! grep -q 'changed <b>' ab.html &&
	grep -q "<tr data-check=\"zz.added\"><td class=\"l\"><code>zz.added</code></td><td class=\"l\"><span class=\"muted\">not in this report" ab.html
ok $? "--html: a row per changed check, escaped"
"$RTSOAK" compare a.json a.json --json aa.json --html aa.html >aa.txt
grep -q "^checks: no status changed ($(jget a.json 'len(r["checks"])') in A" aa.txt &&
	[ "$(jget aa.json 'r["checks"]')" = "[]" ] && ! grep -q '<tr data-check=' aa.html &&
	grep -q 'data-changed="0"' aa.html
ok $? "a report against itself: nothing listed (text, JSON, HTML)"
"$RTSOAK" compare old.json a.json --json oa.json >oa.txt
grep -q '^checks: not compared (A has no checks' oa.txt &&
	[ "$(jget oa.json '"checks" in r')" = false ] && ! grep -q '^  .*only in B' oa.txt
ok $? "against a report from before the checks: not compared, rather than every check 'added'"
"$RTSOAK" compare old.json old.json >oo.txt && ! grep -q '^checks' oo.txt &&
	grep -q '^what differs' oo.txt
ok $? "two reports from before the checks: no checks block, the output as before"
# What differs lists settings, not what every run reads anew: two runs'
# IRQ counts since boot and kernel-thread pids are not differences; an IRQ
# moved to other CPUs and a kernel thread's priority are.
"$RTSOAK" run --duration 1s --probes timer -q -o a2.json 2>/dev/null &&
	"$PYTHON3" - a2.json moved.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["system"]["irqs"][0]["affinity"] = "0-4095"
r["system"]["kthreads"][0]["priority"] = 42
json.dump(r, open(sys.argv[2], "w"))
PY
"$RTSOAK" compare a.json a2.json >same.txt 2>&1
"$RTSOAK" compare a.json moved.json >moved.txt 2>&1
! grep -Eq "count_measured|kthreads\[[0-9]+\]\.pid" same.txt moved.txt &&
	grep -q 'system.irqs\[0\].affinity: .* -> "0-4095"' moved.txt &&
	grep -q 'system.kthreads\[0\].priority: .* -> 42' moved.txt
ok $? "what differs: IRQ counts and kernel-thread pids are not differences; an IRQ's affinity and a thread's priority are ($(grep -c . same.txt) lines)"
done_testing
