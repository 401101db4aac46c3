# SPDX-License-Identifier: GPL-2.0
#
# The check mode's outputs, byte for byte: text, JSON and SARIF of a fixed
# set of cases, normalized (testsuite/golden/normalize.py: pids, addresses,
# timings, the kernel's name) and compared with testsuite/golden/*.{log,json,sarif}.
# Sourced by testsuite/run.sh (pass, fail, want, $UC, $BIN, $TMP).
# A change that means to alter the output regenerates them:
#   GOLDEN_UPDATE=1 testsuite/run.sh golden
GOLDEN_CASES="inj_read_read inj_read_write inj_munmap-inflight_whole
	inj_bufreg-lifetime_unregister inj_sync-overlap_pread inj_user-data-reuse
	inj_pbuf-reprovided_ring inj_left-in-flight_exit inj_dropped_sq_invalid
	inj_bufreg-unmapped_munmap inj_free-inflight_new_owner ok_adjacent"

for c in $GOLDEN_CASES; do
	want "golden: $c" || continue
	g=testsuite/golden/$c
	# the options the case asks for (free-inflight's probes)
	opts=$(header "testsuite/cases/$c.c" options | tr ',' ' ')
	# shellcheck disable=SC2086
	timeout 30 $UC --keep-warm=0 $opts --log-file="$TMP/gold.$c.log" --json="$TMP/gold.$c.json" \
		--sarif="$TMP/gold.$c.sarif" -- "$BIN/$c" >"$TMP/gold.$c.out" 2>&1
	bad=""
	for ext in log json sarif; do
		testsuite/golden/normalize.py "$TMP/gold.$c.$ext" >"$TMP/gold.$c.n.$ext" 2>>"$TMP/gold.$c.out"
		if [ -n "${GOLDEN_UPDATE:-}" ]; then
			cp "$TMP/gold.$c.n.$ext" "$g.$ext"
		elif ! diff -u "$g.$ext" "$TMP/gold.$c.n.$ext" >>"$TMP/gold.$c.diff" 2>&1; then
			bad="$bad $ext"
		fi
	done
	if [ -z "$bad" ]; then
		pass "golden: $c: text, JSON and SARIF as recorded"
	else
		fail "golden: $c" "differs in$bad" "$TMP/gold.$c.diff"
	fi
done
