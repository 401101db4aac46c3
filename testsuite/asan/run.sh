#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-asan: the checker built with -fsanitize=address,undefined
# (.output-asan/uringcheck) through a subset of the test suite, with
# LeakSanitizer on: the usage errors and every other exit path of the
# runner tests, the security tests (refusals, bad paths, write failures,
# signals), the suppression tests and a few cases; then the suppression
# unit test built the same way. Any AddressSanitizer, LeakSanitizer or
# UBSan report fails it, whatever the test's own verdict.
#
#   testsuite/asan/run.sh [PATTERN...]   (default: the subset below)
#
# Ends with "N passed, N failed"; exits 1 if anything failed.
set -u
cd "$(dirname "$0")/../.."

ASAN_UC=.output-asan/uringcheck
if [ ! -x "$ASAN_UC" ]; then
	echo "asan/run.sh: $ASAN_UC is not built (make check-asan builds it)" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
LOGS=$(mktemp -d /tmp/uringcheck-asan.XXXXXX)
trap 'rm -rf "$LOGS"' EXIT
# Reports go to files (the tests read stderr); a kept-warm holder is a
# fork of the checker and is checked too when it exits.
export ASAN_OPTIONS="detect_leaks=1:log_path=$LOGS/asan:exitcode=23"
export UBSAN_OPTIONS="print_stacktrace=1:log_path=$LOGS/ubsan"
# the suite's tests that load eight instances at once allow the sanitized
# reader's loss warning (said, never a finding): testsuite/run.sh
export UC_TESTSUITE_SANITIZED=1

if [ $# -eq 0 ]; then
	set -- "runner: " "security: " "suppressions" "case: inj_read_read" \
		"case: ok_adjacent" "case: inj_left-in-flight_exit" "golden: inj_read_write"
fi
passed=0
failed=0
for pattern in "$@"; do
	out=$(UC=$ASAN_UC testsuite/run.sh "$pattern" 2>&1)
	printf '%s\n' "$out" | grep -E '^(PASS|FAIL|      \|)'
	p=$(printf '%s\n' "$out" | tail -1 | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
	passed=$((passed + ${p%% *}))
	failed=$((failed + ${p##* }))
done

if .output-asan/unit/test_suppressions >"$LOGS/unit.out" 2>&1; then
	passed=$((passed + 1))
	echo "PASS  asan: unit: test_suppressions"
else
	failed=$((failed + 1))
	echo "FAIL  asan: unit: test_suppressions"
	sed 's/^/      | /' "$LOGS/unit.out" | head -40
fi

# Let kept-warm holders (1 s by default) exit and write their reports.
sleep 2
reports=$(ls "$LOGS" | grep -E '^(asan|ubsan)\.' || true)
if [ -z "$reports" ]; then
	passed=$((passed + 1))
	echo "PASS  asan: no AddressSanitizer, LeakSanitizer or UBSan report"
else
	failed=$((failed + 1))
	echo "FAIL  asan: $(wc -l <<<"$reports") sanitizer reports"
	for r in $reports; do
		echo "      | --- $r"
		grep -E 'ERROR|SUMMARY|runtime error|#[0-9] ' "$LOGS/$r" | head -20 | sed 's/^/      | /'
	done
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
