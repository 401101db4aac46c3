#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# testsuite/kernels/initramfs.sh OUT.cpio.gz CONFIG CASES...
#
# A small initramfs for one kernel of the matrix: busybox, ./uringcheck,
# the test programs CASES (names in .output/tests or .output/stacks), every
# shared library they need, the kernel's config in /boot (libbpf reads it
# for __kconfig), and /init, which runs testsuite/kernels/guest.sh.
# A case named static:NAME goes to /s instead, a root for chroot holding
# no shared library at all: ./uringcheck-static as /s/t/uringcheck, NAME's
# static build (.output/static-tests, make check-kernels, or a stack
# test's in .output/stacks), the config, and empty mount points.
set -eu
cd "$(dirname "$0")/../.."
out=$1 config=$2
shift 2
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,run,boot,t,etc}
cp /bin/busybox "$root/bin/busybox"
for a in sh mount mkdir cat grep sed poweroff echo date sleep head wc ls rm uname tr cut printf timeout true unshare chroot find cp dmesg; do
	ln -s busybox "$root/bin/$a"
done
# (none for the lines whose config Debian's archive lacks: fetch.sh)
[ -f "$config" ] && cp "$config" "$root/boot/"
cp uringcheck "$root/t/"
cp testsuite/kernels/guest.sh "$root/t/guest.sh"
for c in "$@"; do
	case $c in static:*)
		c=${c#static:}
		[ -x uringcheck-static ] || { echo "initramfs.sh: no ./uringcheck-static (make STATIC=1)" >&2; exit 1; }
		mkdir -p "$root"/s/{t,proc,sys,dev,tmp,run,boot}
		for d in .output/static-tests .output/stacks; do
			[ -f "$d/$c" ] && cp "$d/$c" "$root/s/t/$c"
		done
		[ -f "$root/s/t/$c" ] || { echo "initramfs.sh: no static test program $c (make check-kernels builds it)" >&2; exit 1; }
		cp uringcheck-static "$root/s/t/uringcheck"
		[ -f "$config" ] && cp "$config" "$root/s/boot/"
		continue
	esac
	for d in .output/tests .output/stacks .output/profile-tests .output/trace-tests; do
		[ -f "$d/$c" ] && cp "$d/$c" "$root/t/$c"
	done
	[ -f "$root/t/$c" ] || { echo "initramfs.sh: no test program $c" >&2; exit 1; }
done
cp testsuite/kernels/cases.list "$root/t/" 2>/dev/null || true
[ -f .output/stacks/libucsubmit.so ] && cp .output/stacks/libucsubmit.so "$root/t/"
# Every shared library, at the path the dynamic linker looks for it.
for f in "$root"/t/*; do
	ldd "$f" 2>/dev/null | awk '/=>/ { print $3 } /^\t\/lib/ { print $1 }'
done | sort -u | while read -r lib; do
	[ -f "$lib" ] || continue
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
cat >"$root/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
cd /t && sh ./guest.sh
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out"
