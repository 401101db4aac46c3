#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Preparation step for `make check-liburing` (run once, needs the network):
# gets Debian's liburing source package with apt and builds its tests in
# .output/liburing-src. Nothing of liburing is committed; run.sh fetches
# nothing.
#
#   testsuite/liburing/get-source.sh            # fetch + build
#   LIBURING_SRC=/path/to/tree testsuite/liburing/get-source.sh   # only build that tree
#   LIBURING_SUITE=sid testsuite/liburing/get-source.sh           # another suite
#
# apt is pointed at a private sources list, lists and cache directory
# under .output/apt: the system's sources are left alone. The archive host
# is the one of the system's existing bookworm entry. sid first (the newest
# liburing), trixie if sid does not have it.
set -eu
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=$ROOT/.output
DEST=$OUT/liburing-src
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

build_tree() {
	local src=$1
	echo "  BUILD    liburing tests in $src"
	( cd "$src" &&
	  { [ -f config-host.mak ] || ./configure >/dev/null; } &&
	  make -s -j2 -C src >/dev/null &&
	  make -s -j2 -C test >/dev/null ) || {
		echo "get-source.sh: building liburing's tests in $src failed" >&2; exit 1; }
	n=$(ls "$src"/test/*.t 2>/dev/null | wc -l)
	echo "  OK       $n tests built in $src/test"
}

if [ -n "${LIBURING_SRC:-}" ]; then
	build_tree "$LIBURING_SRC"
	exit 0
fi

command -v dpkg-source >/dev/null || {
	echo "get-source.sh: dpkg-source missing (apt-get install dpkg-dev)" >&2; exit 1; }

# The archive host of the bookworm entry (deb822 URIs: or one-line deb).
host=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
	/etc/apt/sources.list.d/*.sources 2>/dev/null |
	awk '/^URIs:/ { u=$2 } /^Suites:/ && / bookworm( |$)/ && u { print u; exit }
	     /^deb / && / bookworm / { for (i=2;i<=NF;i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }')
host=${host:-http://deb.debian.org/debian}
host=${host%/}

APT=$OUT/apt
mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$DEST.tmp"
aptopts=(-o Dir::Etc::sourcelist="$APT/sources.list" -o Dir::Etc::sourceparts=-
	 -o Dir::State::Lists="$APT/lists" -o Dir::Cache="$APT/cache"
	 -o APT::Get::List-Cleanup=0 -o APT::Sandbox::User=root)

for suite in ${LIBURING_SUITE:-sid trixie}; do
	echo "deb-src [signed-by=$KEYRING] $host $suite main" >"$APT/sources.list"
	echo "  APT      deb-src $host $suite"
	apt-get "${aptopts[@]}" -qq update || continue
	rm -rf "$DEST.tmp" && mkdir -p "$DEST.tmp"
	if (cd "$DEST.tmp" && apt-get "${aptopts[@]}" -qq source liburing >/dev/null); then
		break
	fi
done
tree=$(find "$DEST.tmp" -maxdepth 1 -mindepth 1 -type d -name 'liburing-*' | head -1)
[ -n "$tree" ] || { echo "get-source.sh: apt-get source liburing failed" >&2; exit 1; }
ver=$(cd "$tree" && dpkg-parsechangelog -S Version 2>/dev/null || basename "$tree")
rm -rf "$DEST"
mv "$tree" "$DEST"
echo "$suite $ver" >"$DEST/.debian-version"
rm -rf "$DEST.tmp"
echo "  SOURCE   liburing $ver ($suite) in $DEST"
build_tree "$DEST"
