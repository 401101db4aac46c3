# SPDX-License-Identifier: GPL-2.0
#
# The check mode attached to a running process (--check -p PID): it judges
# every request submitted from the attach on, until the process exits.
# testsuite/attach/late_overlap.c puts a READ in flight before the attach
# (never seen submitted: its end must be ignored), then, a second later,
# submits two READs into one buffer (or two buffers: "clean").
# Sourced by testsuite/run.sh (pass, fail, want, $UC, $TMP).

if want "attach:"; then
	cc -O2 -g -Wall -o "$TMP/late_overlap" testsuite/attach/late_overlap.c -luring
	# attach_run NAME ARGS...: runs late_overlap ARGS, attaches at 0.4 s
	attach_run() {
		local name=$1 pid
		shift
		"$TMP/late_overlap" "$@" &
		pid=$!
		sleep 0.4
		timeout 20 $UC --check -p "$pid" --json="$TMP/att.$name.json" \
			>"$TMP/att.$name.out" 2>&1
		echo $? >"$TMP/att.$name.rc"
		wait "$pid"
		echo $? >"$TMP/att.$name.prc"
	}
	attach_run hazard 1500
	if [ "$(cat "$TMP/att.hazard.rc")" = 66 ] && [ "$(cat "$TMP/att.hazard.prc")" = 0 ] &&
	   grep -q 'ERROR: uringcheck: overlap: READ and READ' "$TMP/att.hazard.out" &&
	   grep -q 'in main testsuite/attach/late_overlap.c' "$TMP/att.hazard.out" &&
	   python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [f["kind"] for f in d["findings"]] == ["overlap"]' \
		"$TMP/att.hazard.json" 2>>"$TMP/att.hazard.out"; then
		pass "attach: --check -p finds a hazard committed after the attach (overlap, its stack, exit 66)"
	else
		fail "attach: --check -p, hazard" "exit $(cat "$TMP/att.hazard.rc"), or no overlap with its stack" "$TMP/att.hazard.out"
	fi
	attach_run clean 1500 clean
	if [ "$(cat "$TMP/att.clean.rc")" = 0 ] && ! grep -q 'uringcheck: [a-z-]*:' "$TMP/att.clean.out"; then
		pass "attach: --check -p of a clean program is silent (exit 0), the request in flight at the attach ignored"
	else
		fail "attach: --check -p, clean" "exit $(cat "$TMP/att.clean.rc") or a finding" "$TMP/att.clean.out"
	fi
fi
