#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# testsuite/kernels/fetch.sh VERSION...   (5.10, 6.1, 6.12, 7.2, ...)
# testsuite/kernels/fetch.sh --all         the lines KERNELS=all means
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

# Debian suite that carries each kernel line (checked with apt-cache
# madison, 2026-11-27). trixie-backports carries several lines at once,
# each as its own package names (linux-image-6.16.12+deb13-cloud-amd64,
# linux-binary-7.0.13+deb13-cloud-amd64, ...); 7.2 is in sid and in
# trixie-backports: sid's is the one this line has always meant.
LINES="5.10:bullseye 6.1:bookworm 6.12:trixie 6.16:trixie-backports
	6.17:trixie-backports 6.18:trixie-backports 6.19:trixie-backports
	7.0:trixie-backports 7.1:trixie-backports 7.2:sid 7.3:trixie-backports"
suite_of() {
	local l
	for l in $LINES; do
		[ "${l%%:*}" = "$1" ] && { echo "${l#*:}"; return 0; }
	done
	echo "fetch.sh: no known Debian suite for kernel $1 (known: $(all_lines 0))" >&2
	return 1
}
# Every line from 6.1 on (KERNELS=all): the lines Debian supports today.
all_lines() {
	local l
	for l in $LINES; do
		[ "$1" = 0 ] || [ "${l%%:*}" != 5.10 ] && printf '%s ' "${l%%:*}"
	done
}
if [ "${1:-}" = --all ]; then
	all_lines 1
	echo
	exit 0
fi
for v in "$@"; do
	suite_of "$v" >/dev/null || exit 1
done

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
	[ -n "$vmlinuz" ] || { echo "fetch.sh: $img has no vmlinuz" >&2; exit 1; }
	mkdir -p "$dir"
	cp "$vmlinuz" "$dir/vmlinuz"
	# 6.19, 7.0 and 7.1 in trixie-backports (2026-11-27): their
	# linux-base-* (the config) is named by linux-binary-*'s Depends but
	# absent from the archive. The config only gives CONFIG_HZ (the reap
	# lag's clock falls back without it): the guest runs without one,
	# and says so (initramfs.sh, guest.sh).
	if [ -n "$config" ]; then
		cp "$config" "$dir/config-$rel"
	else
		echo "  NOTE     kernel $v: Debian's archive has no linux-base-$rel (the config): the guest runs without /boot/config-$rel"
	fi
	echo "$rel" >"$dir/release"
	rm -rf "$dir.tmp"
	echo "  KERNEL   $v: $rel ($img, Debian $s)"
done
