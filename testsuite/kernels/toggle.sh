#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# testsuite/kernels/toggle.sh VERSION ROUNDS [QEMU ARGS...]
#
# Issue #30's isolation, without uringcheck: boots kernel VERSION
# (fetched by fetch.sh into .output/kernels/VERSION) under qemu as the
# matrix does, with an initramfs holding only busybox and toggle
# (toggle.c: empty programs on sys_enter, sys_exit and sched_switch,
# attached and detached ROUNDS times). Two background tasks keep the
# sites busy meanwhile: dd making one-byte reads and writes (sys_enter,
# sys_exit) and a loop that sleeps 10 ms (sched_switch). QEMU ARGS
# replace the matrix's "-accel tcg -cpu max,cx16=off -smp 2"; GUEST_APPEND
# adds words to the kernel's command line. Prints one line: the guest
# kernel panicked (its Oops and RIP), finished ROUNDS rounds, or did not
# finish; the console is kept in .output/kernels/VERSION/toggle.txt.
# Exit 0 when the rounds finished, 1 otherwise. Not part of any test run:
# a tool for telling the emulator's faults from uringcheck's (docs/kernels.md).
set -u
cd "$(dirname "$0")/../.."
[ $# -ge 2 ] || { echo "usage: testsuite/kernels/toggle.sh VERSION ROUNDS [QEMU ARGS...]" >&2; exit 2; }
v=$1 rounds=$2
shift 2
case $rounds in [1-9]*) ;; *) echo "toggle.sh: ROUNDS must be a positive number, not '$rounds'" >&2; exit 2 ;; esac
case $rounds in *[!0-9]*) echo "toggle.sh: ROUNDS must be a positive number, not '$rounds'" >&2; exit 2 ;; esac
dir=.output/kernels/$v
[ -f "$dir/vmlinuz" ] || testsuite/kernels/fetch.sh "$v" || exit 1
tool=.output/kernels-tools/toggle
[ -x "$tool" ] || make --no-print-directory "$tool" || exit 1
[ $# -gt 0 ] || set -- -accel tcg -cpu max,cx16=off -smp 2
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,proc,sys,dev,tmp,t}
cp /bin/busybox "$root/bin/busybox"
for a in sh mount cat grep sed poweroff echo sleep dd; do ln -s busybox "$root/bin/$a"; done
cp "$tool" "$root/t/"
ldd "$tool" | awk '/=>/ { print $3 } /^\t\/lib/ { print $1 }' | while read -r lib; do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
cat >"$root/init" <<INIT
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
dd if=/dev/zero of=/dev/null bs=1 2>/dev/null &
(while :; do sleep 0.01; done) &
read up _ </proc/uptime; echo "==T0== \$up"
/t/toggle $rounds
echo "==TOGGLE== exit \$?"
read up _ </proc/uptime; echo "==T1== \$up"
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$root.gz"
trap 'rm -rf "$root" "$root.gz"' EXIT
start=$(date +%s)
timeout $((300 + rounds)) qemu-system-x86_64 "$@" -m 2G -nographic -no-reboot \
	-kernel "$dir/vmlinuz" -initrd "$root.gz" \
	-append "console=ttyS0 panic=-1 quiet ${GUEST_APPEND:-}" </dev/null 2>&1 | tr -d '\r' >"$dir/toggle.txt"
took=$(( $(date +%s) - start ))
# toggle prints its count every 1000 rounds
done=$(grep -aoE 'toggle: [0-9]+ rounds' "$dir/toggle.txt" | tail -1 | grep -oE '[0-9]+')
if [ -n "$done" ]; then at="after $done to $((done + 999)) of $rounds rounds"; else at="within its first 1000 rounds"; fi
if grep -aq 'Kernel panic' "$dir/toggle.txt"; then
	echo "toggle $v [$*]: the guest kernel panicked $at, ${took} s:" \
		"$(grep -am1 -oE '(Oops|BUG): .*' "$dir/toggle.txt"), $(grep -am1 -oE 'CPU: [0-9]+ .* Comm: [^ ]+' "$dir/toggle.txt" | sed 's/ UID.*PID/ PID/'), $(grep -am1 -oE 'RIP: 0010:[^ ]+' "$dir/toggle.txt")"
	exit 1
elif grep -aq '==TOGGLE== exit 0' "$dir/toggle.txt"; then
	echo "toggle $v [$*]: $rounds rounds, no panic, ${took} s"
else
	echo "toggle $v [$*]: did not finish (${done:-no} rounds counted), ${took} s; see $dir/toggle.txt"
	exit 1
fi
