#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds the symbolize/ unit tests into OUTDIR and runs them.
#
#   testsuite/unit/symbolize/build.sh OUTDIR
#
# The target (target.c) is built -O2 in the ways Debian binaries come:
# without and with frame pointers, PIE, non-PIE, -static, -static-pie,
# stripped with its debug info beside it (.gnu_debuglink) and stripped
# with its debug info in a build-id tree. Three small libraries: one
# linked in (-g), one C++ plugin (-g, dlopen'ed, dlclose'd), one stripped
# plugin (no -g, dlopen'ed, dlclose'd). Each target runs twice (live and
# after exit, see test_symbolize.c); test_symbolize --self checks the
# harness's own stack, the maps cache and the printer.
#
# Needs gcc, g++, libdw-dev, libelf-dev, zlib1g-dev, liburing-dev,
# libc6-dev (libc.a for -static) and binutils; strace for the no-network
# check (skipped without it).
#
# Ends with "N passed, N failed"; exits 1 if anything failed.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
OUT=${1:?usage: build.sh OUTDIR}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
CC=${CC:-gcc}
CXX=${CXX:-g++}
WARN="-Wall -Wextra -Wno-unused-parameter"
NOFP="-fomit-frame-pointer"
FP="-fno-omit-frame-pointer"

passed=0
failed=0
fail() { failed=$((failed + 1)); printf 'FAIL  %s\n' "$1"; }

# Each build runs in the background; its log and, on failure, a .failed
# marker stay in OUT. Everything is compiled in parallel (< 10 s total).
build() {	# name, command...
	local name=$1; shift
	rm -f "$OUT/$name" "$OUT/$name.so" "$OUT/$name.failed"  # no stale runs
	"$@" >"$OUT/$name.build.log" 2>&1 || touch "$OUT/$name.failed"
}
built() {	# name: reports a failed build once
	if [ -e "$OUT/$1.failed" ]; then
		fail "build $1"
		sed 's/^/      | /' "$OUT/$1.build.log" | head -20
		return 1
	fi
}

# Libraries, as a distribution builds them: -O2, no frame pointer.
build libuct_cb $CC -O2 -g $NOFP $WARN -fPIC -shared \
	-o "$OUT/libuct_cb.so" "$HERE/libuct_cb.c" &
build libuct_cxx $CXX -O2 -g $NOFP -Wall -fPIC -shared \
	-o "$OUT/libuct_cxx.so" "$HERE/libuct_cxx.cc" &
build libuct_stripped sh -c "$CC -O2 $NOFP $WARN -fPIC -shared \
	-o '$OUT/libuct_stripped.so' '$HERE/libuct_stripped.c' &&
	strip --strip-all '$OUT/libuct_stripped.so'" &
build test_symbolize $CC -O2 -g $NOFP $WARN -std=gnu11 -I"$ROOT" \
	-o "$OUT/test_symbolize" "$HERE/test_symbolize.c" \
	"$ROOT"/symbolize/*.c -ldw -lelf -lz &
wait	# the targets link libuct_cb.so

DYN="-L$OUT -luct_cb -Wl,-rpath,\$ORIGIN -ldl -luring"
target() {	# name, compile flags, link flags, then a post-step
	build "$1" $CC -O2 -g $WARN -std=gnu11 $2 -o "$OUT/$1" \
		"$HERE/target.c" ${3:-}
}
target target-nofp-pie "$NOFP -fPIE -pie" "$DYN" &
target target-fp-pie "$FP -fPIE -pie" "$DYN" &
target target-nofp-nopie "$NOFP -fno-PIE -no-pie" "$DYN" &
target target-nofp-static "$NOFP -DUCT_STATIC -fno-PIE -static" -luring &
target target-fp-static "$FP -DUCT_STATIC -fno-PIE -static" -luring &
target target-nofp-static-pie "$NOFP -DUCT_STATIC -fPIE -static-pie" \
	-luring &

# Debian's way: stripped binary, debug info elsewhere.
split_debuglink() {
	target target-debuglink "$NOFP -fPIE -pie" "$DYN" &&
	[ ! -e "$OUT/target-debuglink.failed" ] &&
	{ objcopy --only-keep-debug "$OUT/target-debuglink" \
		"$OUT/target-debuglink.debug" &&
	  strip --strip-all "$OUT/target-debuglink" &&
	  objcopy --add-gnu-debuglink="$OUT/target-debuglink.debug" \
		"$OUT/target-debuglink" || touch "$OUT/target-debuglink.failed"; }
}
split_buildid() {
	rm -rf "$OUT/debugroot"
	target target-buildid "$NOFP -fPIE -pie" "$DYN" &&
	[ ! -e "$OUT/target-buildid.failed" ] && {
		local id
		id=$(readelf -n "$OUT/target-buildid" |
		     awk '/Build ID/ { print $3 }')
		mkdir -p "$OUT/debugroot/.build-id/${id:0:2}" &&
		objcopy --only-keep-debug "$OUT/target-buildid" \
			"$OUT/debugroot/.build-id/${id:0:2}/${id:2}.debug" &&
		strip --strip-all "$OUT/target-buildid" ||
			touch "$OUT/target-buildid.failed"
	}
}
split_debuglink &
split_buildid &
wait
for b in libuct_cb libuct_cxx libuct_stripped test_symbolize \
	 target-nofp-pie target-fp-pie target-nofp-nopie target-nofp-static \
	 target-fp-static target-nofp-static-pie target-debuglink \
	 target-buildid; do
	built "$b"
done

run() {	# args...
	local log=$OUT/run.log
	"$OUT/test_symbolize" "$@" >"$log" 2>&1
	local rc=$?
	cat "$log"
	local p f
	p=$(grep -c '^PASS' "$log")
	f=$(grep -c '^FAIL' "$log")
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		fail "test_symbolize $* exited $rc"
	fi
}

if [ -x "$OUT/test_symbolize" ]; then
	run --self "$OUT"
	for t in target-nofp-pie target-fp-pie target-nofp-nopie \
		 target-debuglink; do
		[ -x "$OUT/$t" ] && run "$OUT/$t" "$OUT"
	done
	[ -x "$OUT/target-buildid" ] &&
		run --debug-root "$OUT/debugroot" "$OUT/target-buildid" "$OUT"
	for t in target-nofp-static target-fp-static target-nofp-static-pie; do
		[ -x "$OUT/$t" ] && run --static "$OUT/$t" "$OUT"
	done
	# No network unless the environment names debuginfod servers: a
	# target without local debug info must not make libdw open a socket
	# when DEBUGINFOD_URLS is unset (with it set, libdw's client is the
	# last resort: testsuite/run.sh, "stacks: stripped binary").
	if command -v strace >/dev/null && [ -x "$OUT/target-buildid" ]; then
		env -u DEBUGINFOD_URLS strace -f -qq \
			-e trace=socket,connect -o "$OUT/strace.log" \
			"$OUT/test_symbolize" "$OUT/target-buildid" "$OUT" \
			>/dev/null 2>&1
		if grep -q -E 'socket\(AF_INET|connect\(' "$OUT/strace.log"; then
			fail "no debuginfod: a socket was opened"
			grep -E 'socket|connect' "$OUT/strace.log" | head -3
		else
			passed=$((passed + 1))
			echo "PASS  no debuginfod query without DEBUGINFOD_URLS"
		fi
	else
		echo "SKIP  no debuginfod query: strace not installed"
	fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
