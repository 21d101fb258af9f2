#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every published JSON Schema (docs/*-schema.json) is a valid schema of the
# draft its "$schema" names (check_schema of that draft's validator, which
# jsonschema.validate() runs first and rejects the schema on), and a known
# good report validates against the report schema, and so do a report with an attribution
# section (tests/make_attrib_report.py), what `rtsoak report --json` makes of it (with the
# patterns' culprits) and the compare --json of two such reports (with causes).
. "$(dirname "$0")/lib.sh"
require_python_jsonschema

schemas=$(ls "$top_srcdir"/docs/*-schema.json)
plan $(($(echo "$schemas" | wc -l) + 3))

# check SCHEMA [INSTANCE]: check_schema, then validate INSTANCE if given.
check() {
	"$PYTHON3" - "$@" <<'PY'
import json, sys
import jsonschema
from jsonschema.validators import validator_for

schema = json.load(open(sys.argv[1]))
cls = validator_for(schema, default=None)
if cls is None:
    sys.exit("%s: $schema %r is not a draft this jsonschema knows" % (sys.argv[1], schema.get("$schema")))
try:
    cls.check_schema(schema)
except jsonschema.SchemaError as e:
    sys.exit("%s: not a valid %s schema at /%s (%s): %.160s" % (
        sys.argv[1], cls.__name__, "/".join(str(p) for p in e.absolute_path), e.validator,
        e.message))
if len(sys.argv) > 2:
    errors = sorted(cls(schema).iter_errors(json.load(open(sys.argv[2]))), key=str)
    for e in errors[:5]:
        print("%s: %s at %s" % (sys.argv[2], e.message, "/".join(str(p) for p in e.absolute_path)))
    sys.exit(1 if errors else 0)
PY
}

for s in $schemas; do
	out=$(check "$s" 2>&1)
	rc=$?
	[ -n "$out" ] && echo "$out" | cut -c1-300 | sed 's/^/# /'
	ok $rc "$(basename "$s") is a valid schema of its \$schema draft"
done

out=$(check "$top_srcdir/docs/report-schema.json" "$top_srcdir/tests/data/report-small.json" 2>&1)
rc=$?
[ -n "$out" ] && echo "$out" | cut -c1-300 | sed 's/^/# /'
ok $rc "tests/data/report-small.json validates against report-schema.json"

cd "$WORK" || exit 1
"$PYTHON3" "$top_srcdir/tests/make_attrib_report.py" "$top_srcdir/tests/data/report-spike.json" \
	at.json && "$RTSOAK" report at.json --json at2.json &&
	grep -q '"culprit"' at2.json && grep -q '"attribution"' at2.json &&
	out=$(check "$top_srcdir/docs/report-schema.json" at.json 2>&1 &&
		check "$top_srcdir/docs/report-schema.json" at2.json 2>&1)
rc=$?
[ -n "$out" ] && echo "$out" | cut -c1-300 | sed 's/^/# /'
ok $rc "a report with attribution, and its culprits after rtsoak report, validate"
"$PYTHON3" "$top_srcdir/tests/make_attrib_report.py" "$top_srcdir/tests/data/report-spike.json" \
	atb.json --shift && "$RTSOAK" compare at.json atb.json --json cmp.json >/dev/null 2>&1
grep -q '"causes"' cmp.json && out=$(check "$top_srcdir/docs/compare-schema.json" cmp.json 2>&1)
rc=$?
[ -n "$out" ] && echo "$out" | cut -c1-300 | sed 's/^/# /'
ok $rc "compare --json with causes validates against compare-schema.json"
done_testing
