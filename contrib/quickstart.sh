#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# quickstart.sh: from a fresh Debian 12 (root, base system only) to a
# measurement or a tested build in one command.
#
#   contrib/quickstart.sh run     install what is missing, build, run the default
#                                 measurement (60 s, every CPU), print the summary
#   contrib/quickstart.sh check   install what is missing, build, run the test suite
#
# The build goes to ./build (out of tree) so that other configurations,
# e.g. build-san with --enable-sanitizers, can sit beside it.  Extra
# configure flags: CONFIGURE_FLAGS="--enable-werror" contrib/quickstart.sh check
set -euo pipefail

mode=${1:-}
case "$mode" in
run | check) ;;
*)
	echo "usage: $0 run|check" >&2
	exit 2
	;;
esac

cd "$(dirname "$0")/.."
src=$(pwd)

# Build tools and libraries (libtracefs and libtraceevent: the flight
# recorder of run --trace, optional: configure --with-tracefs); python3-jsonschema validates reports in the
# tests, util-linux gives chrt and setpriv, iproute2 the network namespaces
# of the remote net test, clang-format the format check, rt-tests the real
# cyclictest whose --json files the import test reads, chromium the browser
# the HTML page is rendered in (headless), clang and its runtime libraries
# the libFuzzer harnesses of .ci/run (configure CC=clang --enable-fuzzing),
# zsh and fish the shells whose completion the tests drive.
packages="build-essential autoconf automake libtool pkg-config libjansson-dev libnuma-dev libtracefs-dev libtraceevent-dev zlib1g-dev"
[ "$mode" = check ] && packages="$packages python3 python3-jsonschema util-linux procps iproute2 clang-format rt-tests chromium clang libclang-rt-14-dev zsh fish"

missing=
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
SUDO=
[ "$(id -u)" -ne 0 ] && SUDO=sudo
if [ -n "$missing" ]; then
	echo "quickstart: installing$missing" >&2
	$SUDO apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# promtool lints the --prom textfile, and the end-to-end test scrapes it with a real
# node_exporter and Prometheus.  Debian ships them as packages that install and start servers
# on the machine being measured: take the three binaries out of the packages instead (into
# build/tools, which the test suite finds through PATH); nothing is installed or started.
tools=$src/build/tools
if [ "$mode" = check ] && { [ ! -x "$tools/promtool" ] || [ ! -x "$tools/prometheus" ] ||
	[ ! -x "$tools/prometheus-node-exporter" ]; }; then
	dl=$(mktemp -d)
	chmod 755 "$dl"
	get() { (cd "$dl" && apt-get download -qq prometheus prometheus-node-exporter >/dev/null 2>&1); }
	if get || { ${SUDO:-} apt-get update -qq && get; }; then
		mkdir -p "$tools"
		for deb in "$dl"/*.deb; do dpkg-deb -x "$deb" "$dl/root"; done
		for b in promtool prometheus prometheus-node-exporter; do
			cp "$dl/root/usr/bin/$b" "$tools/$b"
		done
	else
		echo "quickstart: could not download prometheus and prometheus-node-exporter; their tests will skip" >&2
	fi
	rm -rf "$dl"
fi
export PATH="$tools:$PATH"

[ -x configure ] || autoreconf -fi
mkdir -p build
cd build
[ -f Makefile ] || "$src/configure" ${CONFIGURE_FLAGS:-}
make -j"$(nproc)"

if [ "$mode" = run ]; then
	# Root gets SCHED_FIFO; anyone else is told how to get it (exit 3).
	exec ./rtsoak run
fi
make -j"$(nproc)" check
