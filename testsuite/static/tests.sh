# SPDX-License-Identifier: GPL-2.0
#
# The static binary (make STATIC=1, README "A static binary"): linked
# statically, says what it leaves out and refuses it clearly, loads no
# shared library, replaces libbpf's BTF functions as the shared build
# does, and judges every check-mode case (testsuite/cases) as ./uringcheck
# does. Sourced by testsuite/run.sh after its cases section (pass, fail,
# want, case_verdict, verdict, $CASES, $BIN, $TMP); `make check` builds the
# binary first. Absent (a plain `make`), the section says so and is skipped.
SUC=${STATIC_UC:-./uringcheck-static}

if [ ! -x "$SUC" ]; then
	if [ -z "$FILTER" ] || [[ "$FILTER" == *static* ]] || [[ static == *"$FILTER"* ]]; then
		printf 'SKIP  static: %s is not built (make STATIC=1)\n' "$SUC"
	fi
else

if want "static: linked statically"; then
	# file: "statically linked"; ldd (glibc): "not a dynamic executable"
	if file -L "$SUC" | grep -q 'statically linked' &&
	   ! readelf -d "$SUC" 2>/dev/null | grep -q NEEDED &&
	   ! readelf -l "$SUC" | grep -q INTERP; then
		pass "static: linked statically (no interpreter, no NEEDED library; $(ldd "$SUC" 2>&1 | tr -d '\t'))"
	else
		file -L "$SUC" >"$TMP/static.file"
		readelf -d "$SUC" >>"$TMP/static.file" 2>&1
		fail "static: linked statically" "a dynamic executable" "$TMP/static.file"
	fi
fi

if want "static: make STATIC=1 install" && [ "$SUC" = ./uringcheck-static ]; then
	# installed under the usual name, the man page beside it
	rm -rf "$TMP/sinst"
	if make -s STATIC=1 install PREFIX="$TMP/sinst" >"$TMP/sinst.out" 2>&1 &&
	   cmp -s "$SUC" "$TMP/sinst/bin/uringcheck" &&
	   [ -f "$TMP/sinst/share/man/man1/uringcheck.1" ]; then
		pass "static: make STATIC=1 install puts the static binary under PREFIX as uringcheck"
	else
		fail "static: make STATIC=1 install" "not installed, or not the static binary" "$TMP/sinst.out"
	fi
fi

if want "static: --version"; then
	# names the build and each thing it leaves out; the shared build
	# prints no such line
	"$SUC" --version >"$TMP/static.version" 2>&1
	l=$(grep '^static build:' "$TMP/static.version")
	if [[ "$l" == *"no --metrics"* && "$l" == *"no debuginfod"* && "$l" == *"/etc/passwd"* ]] &&
	   ! $UC --version 2>&1 | grep -q '^static build'; then
		pass "static: --version says static build and what it leaves out"
	else
		fail "static: --version" "no 'static build:' line naming --metrics, debuginfod and NSS" "$TMP/static.version"
	fi
fi

if want "static: --metrics refused"; then
	# a usage error (2) before anything runs, the target never started
	"$SUC" --profile --metrics=127.0.0.1:0 --keep-warm=0 "$BIN/rt_exit3" >"$TMP/static.metrics" 2>&1
	rc=$?
	if [ "$rc" = 2 ] &&
	   grep -q '^uringcheck: --metrics is not in the static build: .*libmicrohttpd' "$TMP/static.metrics"; then
		pass "static: --metrics refused (exit 2, names libmicrohttpd and the shared build)"
	else
		fail "static: --metrics refused" "exit $rc, expected 2 and the message" "$TMP/static.metrics"
	fi
	# the same option through the environment
	URINGCHECK_OPTIONS=--metrics=9 "$SUC" --profile --keep-warm=0 "$BIN/rt_exit3" \
		>"$TMP/static.metrics" 2>&1
	rc=$?
	if [ "$rc" = 2 ] && grep -q 'not in the static build' "$TMP/static.metrics"; then
		pass "static: --metrics from URINGCHECK_OPTIONS refused too"
	else
		fail "static: --metrics from URINGCHECK_OPTIONS" "exit $rc" "$TMP/static.metrics"
	fi
fi

if want "static: no shared library"; then
	# A static target (.output/stacks/overlap_static) under the static
	# checker, DEBUGINFOD_URLS naming a server: nothing in the whole
	# process tree opens a shared object, the note says debuginfod is not
	# asked, and the stack is still symbolized (libdw linked in, the
	# target's own DWARF).
	DEBUGINFOD_URLS=http://127.0.0.1:9 strace -f -qq -e trace=openat,open -o "$TMP/static.strace" \
		"$SUC" --keep-warm=0 --log-file="$TMP/static.st.log" .output/stacks/overlap_static \
		>/dev/null 2>"$TMP/static.st.err"
	rc=$?
	so=$(grep -cE '\.so(\.[0-9]+)*"' "$TMP/static.strace")
	if [ "$rc" = 66 ] && [ "$so" = 0 ] &&
	   grep -q '^uringcheck: note: DEBUGINFOD_URLS is ignored: this is the static build' "$TMP/static.st.err" &&
	   grep -qE '#[0-9]+ 0x[0-9a-f]+ in submit_reads testsuite/stacks/stack_overlap.c:[0-9]+$' "$TMP/static.st.log" &&
	   grep -qE '#[0-9]+ 0x[0-9a-f]+ in main testsuite/stacks/stack_overlap.c:[0-9]+$' "$TMP/static.st.log"; then
		pass "static: no shared library opened (static target, DEBUGINFOD_URLS set: noted), stack symbolized"
	else
		grep -E '\.so' "$TMP/static.strace" | head -5 >>"$TMP/static.st.err"
		cat "$TMP/static.st.log" >>"$TMP/static.st.err" 2>/dev/null
		fail "static: no shared library" "exit $rc (want 66), $so shared objects opened, or no note or frames" "$TMP/static.st.err"
	fi
	# A stripped target whose debug info is on no local path (the
	# stacks section serves it by debuginfod to the shared build), the
	# same server named: the checker's own processes never open
	# libdebuginfod (the shared build does, here), and the frames are
	# given as file+offset
	DEBUGINFOD_URLS=http://127.0.0.1:9 strace -f -qq -e trace=openat,execve -o "$TMP/static.strip" \
		"$SUC" --keep-warm=0 --log-file="$TMP/static.strip.log" .output/stacks/overlap_stripped \
		>/dev/null 2>"$TMP/static.strip.err"
	rc=$?
	child=$(awk '/execve\("\.output\/stacks\/overlap_stripped"/ { print $1; exit }' "$TMP/static.strip")
	dbg=$(grep -v "^$child " "$TMP/static.strip" | grep -c 'libdebuginfod')
	if [ "$rc" = 66 ] && [ -n "$child" ] && [ "$dbg" = 0 ] &&
	   grep -qE '#[0-9]+ 0x[0-9a-f]+ in overlap_stripped\+0x[0-9a-f]+$' "$TMP/static.strip.log"; then
		pass "static: stripped target, DEBUGINFOD_URLS set: libdebuginfod never opened, frames as file+offset"
	else
		cat "$TMP/static.strip.log" >>"$TMP/static.strip.err" 2>/dev/null
		fail "static: stripped target" "exit $rc (want 66), libdebuginfod opened $dbg times, or no file+offset frame" "$TMP/static.strip.err"
	fi
	# without DEBUGINFOD_URLS: no note
	"$SUC" --keep-warm=0 "$BIN/ok_adjacent" >/dev/null 2>"$TMP/static.quiet"
	if ! grep -q 'DEBUGINFOD_URLS' "$TMP/static.quiet"; then
		pass "static: no debuginfod note when DEBUGINFOD_URLS is unset"
	else
		fail "static: no debuginfod note" "a note without DEBUGINFOD_URLS" "$TMP/static.quiet"
	fi
fi

if want "static: C++ names demangled"; then
	# __cxa_demangle linked in from libstdc++.a, not loaded: the
	# destructor's frame (where delete frees the buffer) named as C++
	# spells it, not _ZN6ReaderD...
	"$SUC" --keep-warm=0 --log-file="$TMP/static.cxx.log" \
		"$BIN/inj_free-inflight_delete" >/dev/null 2>&1
	if grep -qE '#[0-9]+ 0x[0-9a-f]+ in Reader::~Reader\(\) testsuite/cases/inj_free-inflight_delete.cc:' \
		"$TMP/static.cxx.log"; then
		pass "static: C++ names demangled (libstdc++.a's demangler)"
	else
		fail "static: C++ names demangled" "no 'Reader::~Reader()' frame" "$TMP/static.cxx.log"
	fi
fi

if want "static: the kernel's BTF read once"; then
	# libbpf.a's btf__load_vmlinux_btf and btf__find_by_name_kind are
	# replaced by --wrap (Makefile, STATIC=1): a cold start opens the
	# kernel's BTF once, as the shared build does; a link that lost the
	# wrap would open it again for each libbpf load
	no_keepers
	strace -f -qq -e trace=openat -o "$TMP/static.btf" "$SUC" --keep-warm=0 true
	c=$(grep -c '"/sys/kernel/btf/vmlinux"' "$TMP/static.btf")
	if [ "$c" = 1 ]; then
		pass "static: the kernel's BTF read once per cold start (libbpf's functions wrapped)"
	else
		fail "static: the kernel's BTF read once" "opened $c times"
	fi
fi

if want "static: sudo"; then
	# the invoking user's name, home and groups from /etc/passwd and
	# /etc/group (NSS files only, run/runner.c)
	nobody_home=$(getent passwd nobody | cut -d: -f6)
	SUDO_UID=65534 SUDO_GID=65534 SUDO_USER=nobody "$SUC" "$BIN/rt_whoami" >"$TMP/static.who" 2>&1
	if grep -q "^uid=65534 gid=65534 .* home=$nobody_home\$" "$TMP/static.who"; then
		pass "static: sudo: target runs as the invoking user ($(cat "$TMP/static.who"))"
	else
		fail "static: sudo" "target identity wrong" "$TMP/static.who"
	fi
fi

# Every check-mode case, one at a time, judged as the shared build's are.
for src in "${CASES[@]}"; do
	n=$(basename "${src%.*}")
	want "static: case: $n" || continue
	v=$(UC=$SUC case_verdict "$src" .static)
	verdict "${v/|case: /|static: case: }"
done

fi
