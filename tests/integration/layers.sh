#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The dependency rule of the source tree (docs/ARCHITECTURE.md, "Layers"):
# each folder is a layer and may include the headers of the layers below it
# only.  Read from the `#include "..."` lines of every .c and .h under src/,
# loads/ and reports/: each included header is mapped to the folder that
# holds it, and each rule lists the folders its layer may include.  A
# violation prints as FILE:LINE #include "HEADER" (LAYER -> LAYER).
. "$(dirname "$0")/lib.sh"

cd "$top_srcdir" || exit 1

# The layer of a source file, by its folder.
layer_of() {
	case "$1" in
	src/main.c) echo main ;;
	src/app/*) echo app ;;
	src/probe/*) echo probe ;;
	src/trace/*) echo trace ;;
	src/record/*) echo record ;;
	src/model/*) echo model ;;
	src/sys/*) echo sys ;;
	src/lib/*) echo lib ;;
	loads/*) echo loads ;;
	reports/*) echo reports ;;
	*) echo unknown ;;
	esac
}

# LAYER: the layers it may include (itself among them).
declare -A allowed=(
	[lib]="lib"
	[sys]="lib sys"
	[record]="lib sys record"
	[probe]="lib sys record probe"
	[model]="lib record model"
	[reports]="lib record model reports"
	[trace]="lib sys record trace"
	[loads]="lib sys loads"
	[app]="lib sys record probe trace model reports loads app"
	[main]="lib sys record probe trace model reports loads app"
)

# Documented exceptions, FILE:HEADER; nothing may be added here without a
# note.  None today: the net probe's options moved into its own table
# (probe.h's struct probe_env and options), so probe/ no longer reads cli.h.
exceptions=()

files=$(ls src/*.[ch] src/*/*.[ch] loads/*.[ch] reports/*.[ch])

# Every header, and the layer of the folder that holds it.  A header name
# must be unique: includes are bare names found through -I.
declare -A home=()
dups=()
for f in $files; do
	case "$f" in *.h) ;; *) continue ;; esac
	h=${f##*/}
	[ -n "${home[$h]:-}" ] && dups+=("$h: ${home[$h]} and $(layer_of "$f")")
	home[$h]=$(layer_of "$f")
done

# FILE LINE HEADER for every quoted include.
includes=$(for f in $files; do
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
		sed -E "s|^([0-9]+):.*\"([^\"]+)\".*|$f \\1 \\2|"
done)

declare -A bad=() count=()
used_exception=()
unknown=()
while read -r f line h; do
	[ -n "$f" ] || continue
	from=$(layer_of "$f")
	count[$from]=$((${count[$from]:-0} + 1))
	to=${home[${h##*/}]:-}
	if [ -z "$to" ]; then
		unknown+=("$f:$line #include \"$h\" (no such header in the tree)")
		continue
	fi
	case " ${allowed[$from]:-} " in *" $to "*) continue ;; esac
	for e in "${exceptions[@]}"; do
		if [ "$e" = "$f:${h##*/}" ]; then
			used_exception+=("$e")
			continue 2
		fi
	done
	bad[$from]+="$f:$line #include \"$h\" ($from -> $to)"$'\n'
done <<<"$includes"

layers=(lib sys record probe model reports loads app main)
plan $((${#layers[@]} + 6))

# The rules cannot pass on an empty reading: every layer has includes.
missing=
for l in "${layers[@]}"; do [ "${count[$l]:-0}" -gt 0 ] || missing+=" $l"; done
ok $([ -z "$missing" ] && echo 0 || echo 1) \
	"every layer was read ($(echo "$includes" | grep -c .) includes${missing:+; none in$missing})"
ok $([ "$(echo "$files" | grep -c .)" -eq "$(for f in $files; do layer_of "$f"; done | grep -vc unknown)" ] && echo 0 || echo 1) \
	"every source file is in a layer folder"
ok ${#dups[@]} "header names are unique${dups[*]:+: ${dups[*]}}"
for u in "${unknown[@]}"; do diag "$u"; done
ok ${#unknown[@]} "every included header is in the tree"

for l in "${layers[@]}"; do
	v=${bad[$l]:-}
	[ -n "$v" ] && printf '%s' "$v" | sed 's/^/# /'
	ok $([ -z "$v" ] && echo 0 || echo 1) "$l includes only: ${allowed[$l]}"
done

# Nothing but app/ and main.c includes app/ (the rules above say it per
# layer; this says it once, across the tree, exceptions aside).
up=$(while read -r f line h; do
	[ -n "$f" ] || continue
	from=$(layer_of "$f")
	[ "${home[${h##*/}]:-}" = app ] || continue
	[ "$from" = app ] || [ "$from" = main ] && continue
	for e in "${exceptions[@]}"; do [ "$e" = "$f:${h##*/}" ] && continue 2; done
	echo "$f:$line #include \"$h\""
done <<<"$includes")
[ -n "$up" ] && echo "$up" | sed 's/^/# /'
ok $([ -z "$up" ] && echo 0 || echo 1) "nothing includes app/ but app/ and main.c"

# An exception that is no longer used must leave the list, or it would
# quietly allow the next one.
stale=
for e in "${exceptions[@]}"; do
	case " ${used_exception[*]} " in *" $e "*) diag "exception still in use: $e (issue 13, probe option table)" ;; *) stale+=" $e" ;; esac
done
ok $([ -z "$stale" ] && echo 0 || echo 1) "every listed exception is still needed${stale:+ (remove:$stale)}"
done_testing
