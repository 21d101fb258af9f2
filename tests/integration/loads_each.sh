#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Each load starts, does measurable work and stops clean within a 3 s run:
# ops > 0, status ok, schema-valid report, no process of the run left, the
# workdir empty afterwards.
. "$(dirname "$0")/lib.sh"
require_root
require_python_jsonschema

loads=$("$RTSOAK" loads | sed -n 's/^\([a-z]*\): .*/\1/p')
[ -n "$loads" ] || skip_all "no load registered"
plan $(($(echo "$loads" | wc -w) * 5 + 1))
cd "$WORK" || exit 1
mkdir wd

for l in $loads; do
	spec=$l
	case $l in
	exec) spec="exec:cmd=while :; do :; done" ;;
	disk) spec="disk:size=16M" ;;
	spike) spec="spike:period=200ms:burst=1ms" ;;
	esac
	rtsoak_tagged run --duration 3s --cpus 0 --loads "$spec" --workdir "$WORK/wd" -q -o "$l.json" 2>"$l.err"
	ok $? "$l: run exits 0 ($(head -c 300 "$l.err"))"
	validate "$l.json"
	ok $? "$l: report is schema-valid"
	[ "$(jget "$l.json" '(r["loads"][0]["name"], r["loads"][0]["ops"] > 0, r["loads"][0]["status"])')" = "[\"$l\", true, \"ok\"]" ]
	ok $? "$l: did measurable work ($(jget "$l.json" '[(x["ops"], x["ops_per_sec"], x["status"], x["last_error"]) for x in r["loads"]]'))"
	left=$(tagged_pids)
	[ -z "$left" ]
	ok $? "$l: no process of the run left ($left)"
	[ -z "$(ls -A wd)" ]
	ok $? "$l: workdir empty afterwards ($(ls wd | head -3))"
done

"$RTSOAK" loads | grep -q "can run here"
ok $? "rtsoak loads says for each load whether it can run here"
done_testing
