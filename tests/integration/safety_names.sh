#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Names and strings that are not what a writer or a terminal expects
# (issue 28, medium 2 and 7 and the low ones):
#  - a reader's error message quotes a string from the file (an unknown
#    schema, a cyclictest histogram key) or a file name: its escape
#    sequences and newlines go out escaped, one line, for report, compare
#    and the fleet view;
#  - --rt-tests-json writes tool.version through jansson: no JSON injection;
#  - --record of a file with a NUL byte is refused before the run (no reader
#    could read the report), exit 2 with one line;
#  - an output path that is not UTF-8 is kept in config and argv (masked),
#    not silently dropped;
#  - out of memory inside jansson's parse is exit 3 "out of memory", not
#    "not valid JSON at line -1" (exit 2).
. "$(dirname "$0")/lib.sh"

DATA="$top_srcdir/tests/data"
asan=0
ldd "$RTSOAK" 2>/dev/null | grep -q libasan && asan=1
plan 16
cd "$WORK" || exit 1
E=$'\x1b]0;pwned\x07\x1b[2J'

"$PYTHON3" - "$DATA" "$E" <<'EOF'
import json, sys
d, e = sys.argv[1], sys.argv[2]
r = json.load(open(d + "/report-small.json"))
r["schema"] = "rtsoak-report/9" + e
json.dump(r, open("schema.json", "w"))
c = json.load(open(d + "/cyclictest-h.json"))
c["thread"]["0"]["histogram"]["9" + e] = 1
json.dump(c, open("ctkey.json", "w"))
r = json.load(open(d + "/report-small.json"))
r["tool"]["version"] = '1", "injected": "x'
json.dump(r, open("version.json", "w"))
EOF
# raw FILE: 0 when FILE holds an ESC, a BEL or a C1 CSI byte
raw() { grep -q $'\x1b\|\x07\|\xc2\x9b' "$1"; }
# clean WHAT RC... -- CMD...: CMD's stdout and stderr hold no raw control
# byte, its exit code is one of RC, and stderr is one line.
clean() {
	local what=$1 want=$2
	shift 2
	"$@" >out.txt 2>err.txt
	local rc=$?
	! raw out.txt && ! raw err.txt && [ "$(wc -l <err.txt)" -le 1 ] &&
		case " $want " in *" $rc "*) true ;; *) false ;; esac
	ok $? "$what: exit $rc, no raw ESC/BEL/C1 byte, one line ($(head -c 200 err.txt | cat -v))"
}
clean "report of an unknown schema with escape sequences" 2 "$RTSOAK" report schema.json
grep -q 'rtsoak-report/9\\x1b\]0;pwned\\x07\\x1b\[2J' err.txt
ok $? "the schema is shown escaped ($(cat err.txt))"
clean "compare of it" 2 "$RTSOAK" compare schema.json "$DATA/report-small.json"
clean "the fleet view with it" 2 "$RTSOAK" report "$DATA/report-small.json" schema.json
clean "a cyclictest histogram key with escape sequences" 2 "$RTSOAK" report ctkey.json
# A file name with an escape sequence and a newline: planted in a shared
# directory, it is in `rtsoak report *.json`'s arguments.
evil="name$E"$'\n'"x.json"
cp schema.json "$evil"
clean "a file name with ESC and a newline, in an error" 2 "$RTSOAK" report "$evil"
clean "a missing file of such a name" 2 "$RTSOAK" report "missing$E.json"
clean "an output path of such a name" 2 "$RTSOAK" report "$DATA/report-small.json" \
	--html "dir$E/x.html"

# --- --rt-tests-json: tool.version through jansson ---------------------------
"$RTSOAK" report version.json --rt-tests-json rt.json 2>/dev/null &&
	[ "$(jget rt.json '[r["rt_test_version:"], "injected" in r]')" = '["rtsoak 1\", \"injected\": \"x", false]' ]
ok $? "--rt-tests-json: tool.version is one escaped string, no key injected ($(head -c 300 rt.json | grep rt_test))"

# --- --record of binary content -------------------------------------------
if [ -r /sys/kernel/notes ] && od -An -c /sys/kernel/notes | grep -q '\\0'; then
	err=$("$RTSOAK" run --duration 1s -q --record /sys/kernel/notes -o rec.json 2>&1)
	rc=$?
	[ $rc -eq 2 ] && [ ! -e rec.json ] && [ "$(echo "$err" | wc -l)" -eq 1 ] &&
		echo "$err" | grep -q "NUL byte"
	ok $? "--record of a file with a NUL byte: exit 2 before the run, one line ($err)"
else
	skip "no /sys/kernel/notes with a NUL byte here"
fi

# --- an output path that is not UTF-8 --------------------------------------
"$RTSOAK" run --duration 1s -q --no-rt --probes timer --cpus 0 -o $'out\xff.json' 2>/dev/null &&
	[ "$("$PYTHON3" -c 'import json; r = json.load(open(b"out\xff.json")); print(r["config"].get("output"), r["tool"]["argv"][-1])')" = "out?.json out?.json" ] &&
	"$RTSOAK" report $'out\xff.json' >/dev/null
ok $? "an output path that is not UTF-8: config.output and argv keep it, masked (was dropped)"

# an exec load whose command is Latin-1: the load was dropped from the report
"$RTSOAK" run --duration 1s -q --no-rt --probes timer --cpus 0 \
	--loads $'exec:cmd=sleep 5 #\xe9' -o load.json 2>/dev/null &&
	[ "$(jget load.json '[(l["spec"], l["options"]["cmd"]) for l in r["loads"]] + [r["phases"][0]["loads"]]')" = '[["exec:cmd=sleep 5 #?", "sleep 5 #?"], ["exec:cmd=sleep 5 #?"]]' ]
ok $? "an exec load with a byte that is not UTF-8 in its command: in loads and phases, masked ($(jget load.json '[l["spec"] for l in r["loads"]]' 2>&1))"

# compare --json of a file whose name is not UTF-8: side "a" was dropped
cp "$DATA/report-small.json" $'a\xe9.json'
"$RTSOAK" compare $'a\xe9.json' "$DATA/report-small.json" --json cmp.json >/dev/null 2>&1
[ "$(jget cmp.json 'r.get("a", {}).get("file")')" = 'a?.json' ]
ok $? "compare --json: a file name that is not UTF-8 is kept, masked ($(jget cmp.json 'r.get("a")' 2>&1 | head -c 100))"

# the fleet view's --json with it: exit 3 "out of memory" before
"$RTSOAK" report $'a\xe9.json' "$DATA/report-small.json" --json fleet.json >/dev/null 2>&1 &&
	[ "$(jget fleet.json '"a?.json" in [x["file"] for x in r["reports"]]')" = true ]
ok $? "the fleet view's --json: a file name that is not UTF-8 is kept, masked"

# --- out of memory inside the parse ------------------------------------------
# A million unknown keys: the text (18 MB) fits, jansson's tree of it
# (about 130 MB) does not; an insert that fails leaves jansson's error as
# initialised (line -1, no text).
"$PYTHON3" - "$DATA" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1] + "/report-small.json"))
r["config"]["unknown"] = {"k%d" % i: i for i in range(1000000)}
json.dump(r, open("keys.json", "w"))
EOF
base=""
for kb in 16384 24576 32768 49152 65536 98304 131072; do
	[ $asan -eq 1 ] && break
	if (ulimit -v $kb && "$RTSOAK" report "$DATA/report-small.json" >/dev/null 2>&1); then
		base=$kb
		break
	fi
done
if [ $asan -eq 1 ]; then
	# ASan reserves terabytes of address space, so ulimit -v cannot make
	# malloc fail; its own soft RSS limit can (malloc returns NULL past it).
	# 100 MB: the small report reads in ~15 MB, this tree needs ~280 MB.
	lim="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1:soft_rss_limit_mb=100"
	ASAN_OPTIONS=$lim "$RTSOAK" report "$DATA/report-small.json" >/dev/null 2>&1 &&
		err=$(ASAN_OPTIONS=$lim "$RTSOAK" report keys.json 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 3 ] && echo "$err" | grep -q "out of memory" && ! echo "$err" | grep -q "line -1"
	ok $? "out of memory while jansson builds the tree (ASan's soft RSS limit): exit 3, 'out of memory' (rc $rc: $err)"
elif [ -z "$base" ]; then
	ok 1 "no address-space limit up to 128 MB runs rtsoak here"
else
	err=$( (ulimit -v $((base + 48 * 1024)) && "$RTSOAK" report keys.json) 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 3 ] && echo "$err" | grep -q "out of memory" && ! echo "$err" | grep -q "line -1"
	ok $? "out of memory while jansson builds the tree: exit 3, 'out of memory' (rc $rc: $err)"
fi
"$RTSOAK" report keys.json >/dev/null
ok $? "with the memory it needs, the same file reads"
done_testing
