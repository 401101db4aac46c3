# SPDX-License-Identifier: GPL-2.0
#
# The check mode attached to a running process (--check -p PID): it judges
# every request submitted from the attach on, until the process exits.
# testsuite/attach/late_overlap.c puts a READ in flight before the attach
# (never seen submitted: its end is counted, never judged), then, a
# second later, submits two READs into one buffer (or two buffers:
# "clean"; one into the early READ's buffer: "early"; a second ring of
# the same sizes: "tworings"; none, the early READ's end alone: "idle"). testsuite/attach/forked_child.c forks
# before the attach; its child commits an overlap after it (found with
# -f; without, a hint names -f). testsuite/attach/late_sync.c runs under
# another instance when -p attaches to it, and commits a sync-overlap
# after the attach.
# Sourced by testsuite/run.sh (pass, fail, want, $UC, $TMP).

if want "attach:"; then
	cc -O2 -g -Wall -o "$TMP/late_overlap" testsuite/attach/late_overlap.c -luring
	cc -O2 -g -Wall -o "$TMP/forked_child" testsuite/attach/forked_child.c -luring
	# attach_run NAME ARGS...: runs late_overlap ARGS (PROG=forked_child:
	# that), attaches at 0.4 s (with $ATT_OPTS)
	attach_run() {
		local name=$1 pid
		shift
		"$TMP/${PROG:-late_overlap}" "$@" &
		pid=$!
		echo "$pid" >"$TMP/att.$name.pid"
		sleep 0.4
		timeout 20 $UC --check -p "$pid" ${ATT_OPTS:-} --json="$TMP/att.$name.json" \
			>"$TMP/att.$name.out" 2>&1
		echo $? >"$TMP/att.$name.rc"
		wait "$pid"
		echo $? >"$TMP/att.$name.prc"
	}
	attach_run hazard 1500
	# json_counter NAME COUNTER: the counter's value in att.NAME.json
	json_counter() {
		python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["counters"][sys.argv[2]])' \
			"$TMP/att.$1.json" "$2" 2>/dev/null
	}
	# the ring, made before the attach, named by the descriptor the
	# process holds it by (late_overlap: pipes on 3-8, the ring on 9)
	if [ "$(cat "$TMP/att.hazard.rc")" = 66 ] && [ "$(cat "$TMP/att.hazard.prc")" = 0 ] &&
	   grep -q 'ERROR: uringcheck: overlap: READ and READ' "$TMP/att.hazard.out" &&
	   grep -q 'in main testsuite/attach/late_overlap.c' "$TMP/att.hazard.out" &&
	   grep -q 'request READ (user_data 0x2) on ring fd 9, thread' "$TMP/att.hazard.out" &&
	   ! grep -q 'fd -1' "$TMP/att.hazard.out" &&
	   python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [f["kind"] for f in d["findings"]] == ["overlap"]' \
		"$TMP/att.hazard.json" 2>>"$TMP/att.hazard.out"; then
		pass "attach: --check -p finds a hazard committed after the attach (overlap, its stack, its ring's real fd, exit 66)"
	else
		fail "attach: --check -p, hazard" "exit $(cat "$TMP/att.hazard.rc"), or no overlap with its stack" "$TMP/att.hazard.out"
	fi
	attach_run clean 1500 clean
	if [ "$(cat "$TMP/att.clean.rc")" = 0 ] && ! grep -q 'uringcheck: [a-z-]*:' "$TMP/att.clean.out" &&
	   grep -q '==[0-9]*==uringcheck: 1 request was in flight at the attach and is not judged' \
		"$TMP/att.clean.out" && [ "$(json_counter clean ends_without_submit)" = 1 ] &&
	   grep -q 'uringcheck: at the attach, its rings held 1 SQE without a CQE yet' "$TMP/att.clean.out" &&
	   [ "$(json_counter clean sqes_unanswered_at_attach)" = 1 ]; then
		pass "attach: --check -p of a clean program finds nothing (exit 0); the request in flight at the attach is counted (its end: ends_without_submit 1; the ring's counters at the attach: sqes_unanswered_at_attach 1)"
	else
		fail "attach: --check -p, clean" "exit $(cat "$TMP/att.clean.rc"), a finding, or the request in flight at the attach not counted" "$TMP/att.clean.out"
	fi
	# A hazard against the request in flight at the attach: not seen
	# submitted, it cannot be judged; it is counted, never a finding.
	attach_run early 1500 early
	if [ "$(cat "$TMP/att.early.rc")" = 0 ] && [ "$(cat "$TMP/att.early.prc")" = 0 ] &&
	   ! grep -q 'uringcheck: [a-z-]*:' "$TMP/att.early.out" &&
	   grep -q 'uringcheck: 1 request was in flight at the attach and is not judged' \
		"$TMP/att.early.out" && [ "$(json_counter early ends_without_submit)" = 1 ]; then
		pass "attach: an overlap with a request in flight at the attach is no finding, and is counted (1 request in flight at the attach)"
	else
		fail "attach: in flight at the attach" "a finding, exit $(cat "$TMP/att.early.rc"), or not counted" "$TMP/att.early.out"
	fi
	# ... also on a ring that submits nothing after the attach (the kernel
	# side never learns of it: the end is counted from its process).
	attach_run idle 1500 idle
	if [ "$(cat "$TMP/att.idle.rc")" = 0 ] && [ "$(cat "$TMP/att.idle.prc")" = 0 ] &&
	   grep -q 'uringcheck: 1 request was in flight at the attach and is not judged' \
		"$TMP/att.idle.out" && [ "$(json_counter idle ends_without_submit)" = 1 ]; then
		pass "attach: a request in flight at the attach on a ring used no more is counted too"
	else
		fail "attach: in flight at the attach, idle ring" "exit $(cat "$TMP/att.idle.rc") or not counted" "$TMP/att.idle.out"
	fi
	# Two rings of the same sizes made before the attach: which one the
	# requests are on cannot be told from the descriptors; it is said.
	attach_run tworings 1500 tworings
	if [ "$(cat "$TMP/att.tworings.rc")" = 66 ] &&
	   grep -q 'request READ (user_data 0x2) on a ring created before the attach, thread' \
		"$TMP/att.tworings.out" && ! grep -q 'fd -1' "$TMP/att.tworings.out"; then
		pass "attach: a ring made before the attach whose descriptor cannot be told is named so, not 'fd -1'"
	else
		fail "attach: two rings before the attach" "exit $(cat "$TMP/att.tworings.rc") or not 'a ring created before the attach'" "$TMP/att.tworings.out"
	fi
	# A child forked before the attach commits the hazard: -f follows it;
	# without -f, no ring is seen and the hint names -f.
	PROG=forked_child ATT_OPTS=-f attach_run forked_f 1500
	if [ "$(cat "$TMP/att.forked_f.rc")" = 66 ] && [ "$(cat "$TMP/att.forked_f.prc")" = 0 ] &&
	   grep -q "following pid $(cat "$TMP/att.forked_f.pid") and 1 process below it (-f)" "$TMP/att.forked_f.out" &&
	   grep -q '==[0-9]*==ERROR: uringcheck: overlap: READ and READ' "$TMP/att.forked_f.out" &&
	   grep -q ' testsuite/attach/forked_child.c:' "$TMP/att.forked_f.out" &&
	   ! grep -q 'no ring seen' "$TMP/att.forked_f.out"; then
		pass "attach: -p -f follows a child forked before the attach and finds its overlap (exit 66)"
	else
		fail "attach: -p -f, forked child" "exit $(cat "$TMP/att.forked_f.rc"), or no overlap in the child" "$TMP/att.forked_f.out"
	fi
	PROG=forked_child attach_run forked 1500
	if [ "$(cat "$TMP/att.forked.rc")" = 0 ] && ! grep -q 'uringcheck: [a-z-]*:' "$TMP/att.forked.out" &&
	   grep -q "uringcheck: no ring seen in pid $(cat "$TMP/att.forked.pid"), which had 1 child process at the attach: -f follows them too" \
		"$TMP/att.forked.out"; then
		pass "attach: -p without -f on a parent whose child does the I/O: no finding, and a hint naming -f"
	else
		fail "attach: -p, forked child, no -f" "exit $(cat "$TMP/att.forked.rc"), a finding, or no hint" "$TMP/att.forked.out"
	fi
	# ... and the profile gives the same hint.
	"$TMP/forked_child" 1500 &
	pid=$!
	sleep 0.4
	timeout 20 $UC -p "$pid" >"$TMP/att.pf.out" 2>&1
	echo $? >"$TMP/att.pf.rc"
	wait "$pid"
	if [ "$(cat "$TMP/att.pf.rc")" = 0 ] &&
	   grep -q "uringcheck: no ring seen in pid $pid, which had 1 child process at the attach: -f follows them too" \
		"$TMP/att.pf.out"; then
		pass "attach: the profile's -p without -f on a parent whose child does the I/O gives the hint too"
	else
		fail "attach: profile -p, forked child" "exit $(cat "$TMP/att.pf.rc") or no hint" "$TMP/att.pf.out"
	fi
	# ... and with -f, the profile counts the child's ring.
	"$TMP/forked_child" 1500 &
	pid=$!
	sleep 0.4
	timeout 20 $UC -p "$pid" -f >"$TMP/att.pff.out" 2>&1
	echo $? >"$TMP/att.pff.rc"
	wait "$pid"
	if [ "$(cat "$TMP/att.pff.rc")" = 0 ] &&
	   grep -q "pid $pid (attached), .* 1 ring" "$TMP/att.pff.out" &&
	   grep -q 'READ  *2 ' "$TMP/att.pff.out" && ! grep -q 'no ring seen' "$TMP/att.pff.out"; then
		pass "attach: the profile's -p -f counts the ring of a child forked before the attach"
	else
		fail "attach: profile -p -f, forked child" "exit $(cat "$TMP/att.pff.rc") or no ring" "$TMP/att.pff.out"
	fi
fi

# -p of a process another instance follows already (late_sync.c, spawned
# under one): the attach takes it over and keeps the list of its rings
# the kernel side holds in its entry (checker/session.c, session_track):
# its ring, tracked and listed before the attach, is the one its pread
# is judged against. Overwritten, the list was empty and the call never
# judged.
if want "attach: -p of a followed process"; then
	cc -O2 -g -Wall -o "$TMP/late_sync" testsuite/attach/late_sync.c -luring
	$UC --keep-warm=0 -- "$TMP/late_sync" 1500 >"$TMP/att.fol.first" 2>&1 &
	first=$!
	for _ in $(seq 50); do
		fpid=$(pgrep -P "$first" -x late_sync)
		[ -n "$fpid" ] && break
		sleep 0.1
	done
	sleep 0.4
	if [ -n "$fpid" ]; then
		timeout 20 $UC --check -p "$fpid" >"$TMP/att.fol.out" 2>&1
		frc=$?
	else
		frc=none
	fi
	wait "$first"
	if [ "$frc" = 66 ] &&
	   grep -q 'ERROR: uringcheck: sync-overlap: pread64() stored into 4096 bytes that the in-flight READ still holds' "$TMP/att.fol.out"; then
		pass "attach: -p of a process another instance follows: its ring's list kept, its sync-overlap found (exit 66)"
	else
		cat "$TMP/att.fol.first" >>"$TMP/att.fol.out" 2>/dev/null
		fail "attach: -p of a followed process" "exit $frc, or no sync-overlap" "$TMP/att.fol.out"
	fi
fi

if want "attach: usage"; then
	# -f needs -p; -f with -a says -a follows everything already
	$UC -f true >"$TMP/att.u1.out" 2>&1
	rc1=$?
	$UC --check -a -f >"$TMP/att.u2.out" 2>&1
	rc2=$?
	if [ "$rc1" = 2 ] && grep -q -- '-f/--follow needs -p PID' "$TMP/att.u1.out" &&
	   [ "$rc2" = 2 ] && grep -q -- '-a follows every process already' "$TMP/att.u2.out" &&
	   $UC --help | grep -q -- '--follow'; then
		pass "attach: usage: -f without -p, and -f with -a, are usage errors that say why; --help lists --follow"
	else
		fail "attach: usage" "exit $rc1/$rc2 or the messages" "$TMP/att.u2.out"
	fi
fi

# --check -a: every process that holds a ring at the start (late_overlap,
# its hazard 2 s later) or makes one during the run (inj_read_read: a
# hazard; ok_adjacent: none), but not one another uringcheck follows (a
# spawned run of inj_read_read beside it: its finding is that run's).
# Other io_uring users of this machine are taken too: only these
# processes' findings are judged (and the start line may say that others
# are left to the uringcheck instances that follow them: a parallel suite).
if want "attach: --check -a"; then
	[ -x "$TMP/late_overlap" ] ||
		cc -O2 -g -Wall -o "$TMP/late_overlap" testsuite/attach/late_overlap.c -luring
	"$TMP/late_overlap" 2000 &
	early=$!
	sleep 0.4
	timeout 30 $UC --check -a -d 5 --json="$TMP/all.json" >"$TMP/all.out" 2>&1 &
	all=$!
	sleep 1.5	# loaded and attached
	timeout 20 $UC --check -a -d 1 >"$TMP/all2.out" 2>&1
	rc2=$?
	"$BIN/inj_read_read" >/dev/null 2>&1 &
	inj=$!
	"$BIN/ok_adjacent" >/dev/null 2>&1 &
	ok=$!
	timeout 20 $UC --log-file="$TMP/all.spawned.log" -- "$BIN/inj_read_read" >/dev/null 2>&1 &
	spawned=$!
	wait "$inj" "$ok"
	wait "$spawned"
	rcs=$?
	wait "$all"
	rc=$?
	wait "$early"
	spid=$(grep -m1 -oE '^==[0-9]+==ERROR' "$TMP/all.spawned.log" | grep -oE '[0-9]+')
	if [ "$rc" = 66 ] && [ "$rcs" = 66 ] && [ -n "$spid" ] &&
	   grep -qE 'uringcheck: --check -a: .* taken( \([^)]*\))?; every process that makes a ring from now on is checked too' "$TMP/all.out" &&
	   [ "$rc2" = 70 ] && grep -qE -- "--check -a: uringcheck pid [0-9]+ checks every process already" "$TMP/all2.out" &&
	   python3 - "$TMP/all.json" "$early" "$inj" "$ok" "$spid" <<'PY' 2>>"$TMP/all.out"
import json, sys
d = json.load(open(sys.argv[1]))
early, inj, ok, spawned = (int(a) for a in sys.argv[2:])
by = {}
for f in d["findings"]:
    by.setdefault(f["pid"], []).append(f["kind"])
assert by.get(early) == ["overlap"], ("taken at the start", by)
assert by.get(inj) == ["overlap"], ("made a ring during the run", by)
assert ok not in by, ("look-alike", by)
assert spawned not in by, ("another uringcheck's", by)
PY
	then
		pass "attach: --check -a checks the processes holding a ring at its start and those making one later, not another uringcheck's; a second -a is refused"
	else
		fail "attach: --check -a" "exit $rc/$rcs/$rc2, or the findings by pid" "$TMP/all.out"
		cat "$TMP/all2.out" >>"$TMP/all.out"
	fi
fi
