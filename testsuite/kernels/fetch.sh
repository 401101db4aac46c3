#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# testsuite/kernels/fetch.sh VERSION...   (5.10, 6.1, 6.12, 7.2, ...)
#
# Downloads Debian's cloud kernel package for each VERSION from Debian's
# archive, through apt with a private list (the system's sources are left
# alone), and unpacks its vmlinuz and config into
# .output/kernels/VERSION/{vmlinuz,config-RELEASE}. Already there: kept.
set -eu
cd "$(dirname "$0")/../.."
CACHE=$PWD/.output/kernels
mkdir -p "$CACHE/apt/lists/partial" "$CACHE/apt/archives/partial"
# The archive host of the system's own bookworm entry.
HOST=$(awk '/^URIs:/ && $2 ~ /debian$/ { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null)
HOST=${HOST:-$(awk '$1 == "deb" && $0 ~ /bookworm/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)}
HOST=${HOST:-http://deb.debian.org/debian}

# Debian suite that carries each kernel line.
suite_of() {
	case $1 in
	5.10) echo bullseye ;;
	6.1) echo bookworm ;;
	6.12) echo trixie ;;
	7.2) echo sid ;;
	7.3) echo trixie-backports ;;
	*) echo "fetch.sh: no known Debian suite for kernel $1" >&2; return 1 ;;
	esac
}

APT=(apt-get -q -o Dir::Etc::sourcelist="$CACHE/apt/sources.list"
	-o Dir::Etc::sourceparts=- -o Dir::State::Lists="$CACHE/apt/lists"
	-o Dir::Cache="$CACHE/apt" -o Debug::NoLocking=1)

need_update=0
for v in "$@"; do
	[ -f "$CACHE/$v/vmlinuz" ] || need_update=1
done
[ $need_update = 1 ] || exit 0

: >"$CACHE/apt/sources.list"
for s in bullseye bookworm trixie trixie-backports sid; do
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $HOST $s main" \
		>>"$CACHE/apt/sources.list"
done
"${APT[@]}" update >"$CACHE/apt/update.log" 2>&1 ||
	{ echo "fetch.sh: apt-get update failed (see $CACHE/apt/update.log)" >&2; exit 1; }

for v in "$@"; do
	[ -f "$CACHE/$v/vmlinuz" ] && continue
	s=$(suite_of "$v")
	# The newest cloud image of that line in that suite (7.x split the
	# vmlinuz into linux-binary-*, the config into linux-base-*).
	pkgs=$(apt-cache -o Dir::Etc::sourcelist="$CACHE/apt/sources.list" \
		-o Dir::Etc::sourceparts=- -o Dir::State::Lists="$CACHE/apt/lists" \
		-o Dir::Cache="$CACHE/apt" search "^linux-(image|binary|base)-${v//./\\.}\\.[.0-9+~a-z-]*-cloud-amd64(-unsigned)?\$" 2>/dev/null |
		awk '{ print $1 }' | grep -v -- '-dbg' | sort -V)
	# 7.x: linux-image-* is a meta package; linux-binary-* has the kernel.
	img=$(echo "$pkgs" | grep -E '^linux-binary-' | tail -1)
	[ -n "$img" ] || img=$(echo "$pkgs" | grep -E '^linux-image-' | grep -v -- '-unsigned' | tail -1)
	[ -n "$img" ] || img=$(echo "$pkgs" | grep -E '^linux-image-' | tail -1)
	if [ -z "$img" ]; then
		echo "fetch.sh: no cloud kernel package for $v in Debian $s" >&2
		exit 1
	fi
	rel=$(echo "$img" | sed -E 's/^linux-(image|binary)-//; s/-unsigned$//')
	base=$(echo "$pkgs" | grep -Fx "linux-base-$rel" || true)
	dir=$CACHE/$v
	rm -rf "$dir.tmp" && mkdir -p "$dir.tmp/x"
	(cd "$dir.tmp" && "${APT[@]}" download "$img" $base >download.log 2>&1) ||
		{ echo "fetch.sh: cannot download $img from Debian $s (see $dir.tmp/download.log)" >&2; exit 1; }
	for deb in "$dir.tmp"/*.deb; do dpkg-deb -x "$deb" "$dir.tmp/x"; done
	vmlinuz=$(find "$dir.tmp/x" -name "vmlinuz*" -type f | head -1)
	config=$(find "$dir.tmp/x" \( -name "config-*" -o -name config \) -type f | head -1)
	[ -n "$vmlinuz" ] && [ -n "$config" ] ||
		{ echo "fetch.sh: $img has no vmlinuz or config" >&2; exit 1; }
	mkdir -p "$dir"
	cp "$vmlinuz" "$dir/vmlinuz"
	cp "$config" "$dir/config-$rel"
	echo "$rel" >"$dir/release"
	rm -rf "$dir.tmp"
	echo "  KERNEL   $v: $rel ($img, Debian $s)"
done
