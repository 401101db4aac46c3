#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness integration: the three tiny projects next to this script (automake,
# meson, CMake/CTest) each have clean_test, hazard_test (an overlap) and
# skip_test (exits 77). Each is built out of tree in a temporary directory and
# its suite run under uringcheck through the harness's own wrapper mechanism;
# the harness's own result files must then say: the suite failed, hazard_test
# is the only failure and its log holds the report, clean_test passed,
# skip_test was SKIPPED.
#
#   testsuite/harness/run.sh [PATH/TO/uringcheck]   (default: the repo's)
#
# One line per assertion: "PASS  harness: what" / "FAIL  harness: what: why".
# Exits 0 only if every assertion passed. As root, installs the Debian
# packages it needs when they are missing.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
UC=${1:-$REPO/uringcheck}
case $UC in
*/*) UC=$(cd "$(dirname "$UC")" 2>/dev/null && pwd)/$(basename "$UC") ;;
*) UC=$(command -v "$UC" || echo "$UC") ;;
esac
unset URINGCHECK URINGCHECK_OPTIONS   # the caller's settings must not leak in
export LC_ALL=C

npass=0
nfail=0
pass() { npass=$((npass + 1)); printf 'PASS  %s\n' "$1"; }
fail() {
	nfail=$((nfail + 1))
	printf 'FAIL  %s: %s\n' "$1" "$2"
	if [ -n "${3:-}" ] && [ -f "$3" ]; then tail -n 25 "$3" | sed 's/^/      | /'; fi
}
finish() {
	printf '%d passed, %d failed\n' "$npass" "$nfail"
	[ "$nfail" -eq 0 ]
	exit
}

# --- setup ---------------------------------------------------------------
if [ ! -x "$UC" ]; then
	fail "setup: uringcheck" "$UC is not an executable (run make first)"
	finish
fi

PKGS="automake autoconf meson ninja-build cmake make gcc libc6-dev liburing-dev pkg-config python3"
missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		fail "setup: packages" "missing:$missing (run as root to install them)"
		finish
	fi
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	if ! apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1; then
		apt-get update -qq >/dev/null 2>&1
		apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1 ||
			{ fail "setup: packages" "apt-get install$missing failed"; finish; }
	fi
fi

W=$(mktemp -d /tmp/uringcheck-harness.XXXXXX)
trap 'rm -rf "$W"' EXIT
TESTS="clean_test hazard_test skip_test"

# The three projects are configured and built at the same time (autoreconf
# and configure are mostly serial shell), then tested one after the other.
# Each setup's output goes to $W/NAME-setup.log, its status to .rc.
setup_at() {
	cp -r "$HERE/autotools" "$W/at-src" && mkdir "$W/at-build" &&
		(cd "$W/at-src" && autoreconf -fi) &&
		(cd "$W/at-build" && ../at-src/configure -q && make -s -j2)
}
setup_m() {
	meson setup "$W/mb" "$HERE/meson" -Duringcheck="$UC" && ninja -C "$W/mb"
}
setup_c() {
	cmake -S "$HERE/cmake" -B "$W/cb" && cmake --build "$W/cb" -j2
}
(setup_at >"$W/at-setup.log" 2>&1; echo $? >"$W/at-setup.rc") &
(setup_m >"$W/m-setup.log" 2>&1; echo $? >"$W/m-setup.rc") &
(setup_c >"$W/c-setup.log" 2>&1; echo $? >"$W/c-setup.rc") &
wait

# check_results HARNESS RC RESULTS HAZARD_LOG
#   RESULTS has one "test RESULT" line per test, RESULT one of PASS, FAIL,
#   SKIP or whatever else the harness said (ERROR, TIMEOUT, ...), as parsed
#   from the harness's own result files.
check_results() {
	local h=$1 rc=$2 res=$3 log=$4 failed r

	if [ "$rc" -ne 0 ]; then
		pass "$h: suite fails under uringcheck (exit $rc)"
	else
		fail "$h: suite fails under uringcheck" "it exited 0"
	fi
	failed=$(awk '$2 != "PASS" && $2 != "SKIP" { print $1 "=" $2 }' "$res" | sort | xargs)
	if [ "$failed" = "hazard_test=FAIL" ]; then
		pass "$h: hazard_test is the only failed test"
	else
		fail "$h: hazard_test is the only failed test" "not passed/skipped: '${failed:-none}'" "$res"
	fi
	r=$(awk '$1 == "clean_test" { print $2 }' "$res")
	if [ "$r" = PASS ]; then pass "$h: clean_test passed"
	else fail "$h: clean_test passed" "result '${r:-missing}'"; fi
	r=$(awk '$1 == "skip_test" { print $2 }' "$res")
	if [ "$r" = SKIP ]; then pass "$h: skip_test reported as SKIPPED"
	else fail "$h: skip_test reported as SKIPPED" "result '${r:-missing}'"; fi
	if grep -q 'ERROR: uringcheck: overlap' "$log" 2>/dev/null; then
		pass "$h: hazard_test log has 'ERROR: uringcheck: overlap'"
	else
		fail "$h: hazard_test log has 'ERROR: uringcheck: overlap'" "not in $(basename "$log")" "$log"
	fi
}

# check_baseline HARNESS RC RESULTS: without uringcheck everything passes
# (hazard_test included: the failure above is the checker's verdict).
check_baseline() {
	local got
	got=$(sort "$3" | xargs)
	if [ "$2" -eq 0 ] && [ "$got" = "clean_test PASS hazard_test PASS skip_test SKIP" ]; then
		pass "$1: without uringcheck the suite passes (skip_test skipped)"
	else
		fail "$1: without uringcheck the suite passes" "exit $2, results: $got" "$3"
	fi
}

# --- automake parallel test harness -----------------------------------------
automake_results() { # BUILDDIR > RESULTS, from the per-test .trs files
	for t in $TESTS; do
		echo "$t $(sed -n 's/^:test-result: *//p' "$1/$t.trs" 2>/dev/null | head -1)"
	done
}
H=autotools
if [ "$(cat "$W/at-setup.rc")" = 0 ]; then
	pass "$H: autoreconf, configure and build out of tree"
	(cd "$W/at-build" && timeout 120 make -j4 check) >"$W/at-base.out" 2>&1
	rc=$?
	automake_results "$W/at-build" >"$W/at-base.res"
	check_baseline "$H" "$rc" "$W/at-base.res"

	(cd "$W/at-build" && timeout 120 make -j4 check URINGCHECK="$UC") >"$W/at.out" 2>&1
	rc=$?
	automake_results "$W/at-build" >"$W/at.res"
	check_results "$H" "$rc" "$W/at.res" "$W/at-build/hazard_test.log"
	sl="$W/at-build/test-suite.log"
	counts=$(grep -E '^# (TOTAL|PASS|SKIP|FAIL|ERROR):' "$sl" 2>/dev/null | tr -s ' ' | xargs)
	if [ "$counts" = "# TOTAL: 3 # PASS: 1 # SKIP: 1 # FAIL: 1 # ERROR: 0" ]; then
		pass "$H: test-suite.log counts TOTAL 3, PASS 1, SKIP 1, FAIL 1"
	else
		fail "$H: test-suite.log counts" "got '$counts'" "$sl"
	fi
else
	fail "$H: autoreconf, configure and build out of tree" "failed" "$W/at-setup.log"
fi

# --- meson test ---------------------------------------------------------------
meson_results() { # BUILDDIR HAZARD_LOG > RESULTS, from meson-logs/testlog*.json
	python3 - "$1" "$2" <<'EOF'
import glob, json, sys
names = {"OK": "PASS", "FAIL": "FAIL", "SKIP": "SKIP"}
for path in glob.glob(sys.argv[1] + "/meson-logs/testlog*.json"):
    for line in open(path):
        d = json.loads(line)
        print(d["name"], names.get(d["result"], d["result"]))
        if d["name"] == "hazard_test":
            with open(sys.argv[2], "w") as f:
                f.write((d.get("stdout") or "") + (d.get("stderr") or ""))
EOF
}
# meson_run LABEL ARGS...: runs `meson test ARGS` in the build dir, checks
meson_run() {
	local h=$1 rc counts
	shift
	rm -f "$W/mb/meson-logs"/testlog*
	(cd "$W/mb" && timeout 120 meson test --timeout-multiplier 2 "$@") >"$W/m.out" 2>&1
	rc=$?
	meson_results "$W/mb" "$W/m-hazard.log" >"$W/m.res"
	if [ "$h" = meson ]; then  # baseline
		check_baseline "$h" "$rc" "$W/m.res"
		return
	fi
	check_results "$h" "$rc" "$W/m.res" "$W/m-hazard.log"
	counts=$(grep -E '^(Ok|Fail|Skipped|Timeout):' "$W/m.out" | tr -s ' ' | xargs)
	if [ "$counts" = "Ok: 1 Fail: 1 Skipped: 1 Timeout: 0" ]; then
		pass "$h: summary counts Ok 1, Fail 1, Skipped 1"
	else
		fail "$h: summary counts" "got '$counts'" "$W/m.out"
	fi
}
H=meson
if [ "$(cat "$W/m-setup.rc")" = 0 ]; then
	pass "$H: setup and build out of tree (meson $(meson --version))"
	meson_run meson
	meson_run "meson --wrapper" --wrapper="$UC --"
	meson_run "meson --setup=uringcheck" --setup=uringcheck
else
	fail "$H: setup and build out of tree" "failed" "$W/m-setup.log"
fi

# --- CMake / CTest ------------------------------------------------------------
ctest_results() { # JUNIT HAZARD_LOG > RESULTS, from ctest --output-junit
	python3 - "$1" "$2" <<'EOF'
import sys, xml.etree.ElementTree as ET
for tc in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    if tc.find("failure") is not None:
        r = "FAIL"
    elif tc.find("skipped") is not None:
        r = "SKIP"
    elif tc.get("status") == "run":
        r = "PASS"
    else:
        r = tc.get("status", "?").upper()
    print(tc.get("name"), r)
    if tc.get("name") == "hazard_test":
        with open(sys.argv[2], "w") as f:
            f.write(tc.findtext("system-out") or "")
EOF
}
# ctest_run LABEL CMAKE_ARGS...: reconfigures (no rebuild needed), runs ctest
ctest_run() {
	local h=$1 rc out
	shift
	rm -f "$W/cb/junit.xml"
	if ! cmake "$W/cb" "$@" >"$W/c-conf.log" 2>&1; then
		fail "$h: configure" "failed" "$W/c-conf.log"
		return
	fi
	(cd "$W/cb" && timeout 120 ctest --timeout 60 --output-junit junit.xml) >"$W/c.out" 2>&1
	rc=$?
	ctest_results "$W/cb/junit.xml" "$W/c-hazard.log" >"$W/c.res" 2>>"$W/c.out"
	if [ "$h" = cmake ]; then  # baseline
		check_baseline "$h" "$rc" "$W/c.res"
		return
	fi
	check_results "$h" "$rc" "$W/c.res" "$W/c-hazard.log"
	out=$(grep -E 'tests passed|- (hazard|skip|clean)_test \(' "$W/c.out" | tr -s ' \t' ' ' | xargs)
	if [ "$out" = "67% tests passed, 1 tests failed out of 3 3 - skip_test (Skipped) 2 - hazard_test (Failed)" ]; then
		pass "$h: ctest output: 1 of 3 failed (hazard_test), skip_test not run (Skipped)"
	else
		fail "$h: ctest output" "got '$out'" "$W/c.out"
	fi
}
H=cmake
if [ "$(cat "$W/c-setup.rc")" = 0 ]; then
	pass "$H: configure and build out of tree (cmake $(cmake --version | sed -n 's/^cmake version //p'))"
	ctest_run cmake
	ctest_run "cmake UC_LAUNCHER" -DUC_LAUNCHER="$UC;--"
	ctest_run "cmake CMAKE_CROSSCOMPILING_EMULATOR" -DUC_LAUNCHER= \
		-DCMAKE_CROSSCOMPILING_EMULATOR="$UC;--"
else
	fail "$H: configure and build out of tree" "failed" "$W/c-setup.log"
fi

finish
