# SPDX-License-Identifier: GPL-2.0
#
# free-inflight's uprobes are on by default; where heap releases are not
# judged in a process that used io_uring, the run says so in one note at
# its end and counts the processes (--json: processes_heap_unjudged).
# The injections themselves are cases (testsuite/cases/*free-inflight*),
# run without options. Sourced by testsuite/run.sh (pass, fail, want,
# bpf_left, $UC, $BIN, $TMP).

HEAP_NOTE='uringcheck: note: heap releases \(free-inflight\) not judged in'

# heap_run NAME UC-OPTIONS... -- PROGRAM: runs it with a log and a JSON
# file; sets heap_rc, heap_notes (note lines), heap_count (the counter)
heap_run() {
	local name=$1
	shift
	timeout 30 $UC --keep-warm=0 --log-file="$TMP/heap.$name.log" \
		--json="$TMP/heap.$name.json" "$@" >"$TMP/heap.$name.out" 2>&1
	heap_rc=$?
	heap_notes=$(grep -cE "$HEAP_NOTE" "$TMP/heap.$name.log" 2>/dev/null)
	heap_count=$(grep -o '"processes_heap_unjudged":[0-9]*' "$TMP/heap.$name.json" 2>/dev/null |
		cut -d: -f2)
	cat "$TMP/heap.$name.out" >>"$TMP/heap.$name.log" 2>/dev/null
}

if want "heap: on by default"; then
	# the injection found with no option, nothing said unjudged, 0 counted
	heap_run default -- "$BIN/inj_free-inflight_malloc"
	if [ "$heap_rc" = 66 ] && grep -q 'ERROR: uringcheck: free-inflight:' "$TMP/heap.default.log" &&
	   [ "$heap_notes" = 0 ] && [ "$heap_count" = 0 ]; then
		pass "heap: on by default: free() under a READ found, no unjudged note, 0 counted"
	else
		fail "heap: on by default" "exit $heap_rc (want 66), notes $heap_notes (want 0), counted '$heap_count' (want 0)" "$TMP/heap.default.log"
	fi
fi

if want "heap: look-alike"; then
	# a free after the CQE, probes on: silent, and nothing said unjudged
	heap_run lookalike -- "$BIN/ok_free-inflight_after_cqe"
	if [ "$heap_rc" = 0 ] && ! grep -q 'uringcheck: free-inflight' "$TMP/heap.lookalike.log" &&
	   [ "$heap_notes" = 0 ] && [ "$heap_count" = 0 ]; then
		pass "heap: look-alike (free after the CQE) silent, no unjudged note, 0 counted"
	else
		fail "heap: look-alike" "exit $heap_rc, notes $heap_notes, counted '$heap_count'" "$TMP/heap.lookalike.log"
	fi
fi

if want "heap: opted out"; then
	# --heap-probes=no, and its sanitizer form: the same injection not
	# judged, said once and counted
	heap_run optout --heap-probes=no -- "$BIN/inj_free-inflight_malloc"
	rc1=$heap_rc n1=$heap_notes c1=$heap_count
	URINGCHECK_OPTIONS=heap_probes=0 heap_run optenv -- "$BIN/inj_free-inflight_malloc"
	if [ "$rc1" = 0 ] && [ "$n1" = 1 ] && [ "$c1" = 1 ] &&
	   grep -qE "$HEAP_NOTE 1 process that used io_uring: 1 with the probes turned off \(--heap-probes=no\)$" \
		"$TMP/heap.optout.log" &&
	   ! grep -q 'uringcheck: free-inflight' "$TMP/heap.optout.log" &&
	   [ "$heap_rc" = 0 ] && [ "$heap_notes" = 1 ] && [ "$heap_count" = 1 ]; then
		pass "heap: opted out (--heap-probes=no, heap_probes=0): not judged, one note, 1 counted"
	else
		cat "$TMP/heap.optenv.log" >>"$TMP/heap.optout.log" 2>/dev/null
		fail "heap: opted out" "exit $rc1/$heap_rc (want 0), notes $n1/$heap_notes (want 1), counted '$c1'/'$heap_count' (want 1)" "$TMP/heap.optout.log"
	fi
fi

if want "heap: not among --hazards"; then
	# the kind not asked for: neither judged nor told of
	heap_run hazards --hazards=overlap --heap-probes=no -- "$BIN/inj_free-inflight_malloc"
	if [ "$heap_rc" = 0 ] && [ "$heap_notes" = 0 ] && [ "$heap_count" = 0 ]; then
		pass "heap: free-inflight not among --hazards: no unjudged note, 0 counted"
	else
		fail "heap: not among --hazards" "exit $heap_rc, notes $heap_notes, counted '$heap_count'" "$TMP/heap.hazards.log"
	fi
fi

if want "heap: static target"; then
	# a statically linked target maps no libc.so.6: said and counted
	if ${CC:-cc} -O2 -g -Wall -static -Itestsuite/cases -o "$TMP/heap_static" \
		testsuite/cases/inj_free-inflight_malloc.c -l:liburing.a -lpthread \
		>"$TMP/heap.static.cc" 2>&1; then
		heap_run static -- "$TMP/heap_static"
		if [ "$heap_rc" = 0 ] && [ "$heap_notes" = 1 ] && [ "$heap_count" = 1 ] &&
		   grep -qE "$HEAP_NOTE 1 process .*1 mapping no glibc libc\.so\.6 \(a static binary" \
			"$TMP/heap.static.log"; then
			pass "heap: static target: not judged, one note, 1 counted"
		else
			fail "heap: static target" "exit $heap_rc, notes $heap_notes, counted '$heap_count'" "$TMP/heap.static.log"
		fi
	else
		fail "heap: static target" "cannot build a static test program (liburing.a?)" "$TMP/heap.static.cc"
	fi
fi

if want "heap: inherited ring"; then
	# a forked child frees a chunk under a READ on its parent's ring:
	# not looked for, said and counted
	if ${CC:-cc} -O2 -g -Wall -o "$TMP/heap_inherited" testsuite/heap/inherited_ring.c \
		-luring >"$TMP/heap.inherited.cc" 2>&1; then
		heap_run inherited -- "$TMP/heap_inherited"
		if [ "$heap_rc" = 0 ] && [ "$heap_notes" = 1 ] && [ "$heap_count" = 1 ] &&
		   grep -qE "$HEAP_NOTE 1 process .*1 submitting on a ring another process made" \
			"$TMP/heap.inherited.log"; then
			pass "heap: a child submitting on its parent's ring: not judged, one note, 1 counted"
		else
			fail "heap: inherited ring" "exit $heap_rc, notes $heap_notes, counted '$heap_count'" "$TMP/heap.inherited.log"
		fi
	else
		fail "heap: inherited ring" "cannot build testsuite/heap/inherited_ring.c" "$TMP/heap.inherited.cc"
	fi
fi

if want "heap: bad value"; then
	$UC --heap-probes=maybe true >/dev/null 2>"$TMP/heap.bad.err"
	rc=$?
	if [ "$rc" = 2 ] && grep -q -- '--heap-probes=maybe: takes no value, or yes/no' "$TMP/heap.bad.err"; then
		pass "heap: --heap-probes=maybe refused (exit 2, yes/no named)"
	else
		fail "heap: bad value" "exit $rc (want 2)" "$TMP/heap.bad.err"
	fi
fi

if want "heap: probes released"; then
	# The probes' form is the one --version names (uprobe_multi links on
	# v6.12+, else a perf event each), and none is left once the run has
	# ended: the heap program's links are read from the running instance's
	# descriptors, then looked for again after it exits (the closer,
	# uringcheck-close, drops the last references within a second or so).
	# free and realloc's entries, realloc's return: two links, or three.
	form=perf want_n=3
	$UC --version | grep -qE '^  uprobes +one uprobe_multi link' && form=uprobe_multi want_n=2
	$UC --keep-warm=0 --log-file="$TMP/heap.links.log" -- sleep 1.5 &
	ucpid=$!
	links="" types=""
	for _ in $(seq 30); do
		links="" types=""
		for f in /proc/$ucpid/fdinfo/*; do
			id=$(awk '/^link_id:/ { print $2 }' "$f" 2>/dev/null)
			prog=$(awk '/^prog_id:/ { print $2 }' "$f" 2>/dev/null)
			[ -n "$id" ] && [ -n "$prog" ] || continue
			bpftool prog show id "$prog" 2>/dev/null | grep -q 'name uc_heap_releas' || continue
			links="$links $id"
			types="$types $(awk '/^link_type:/ { print $2 }' "$f")"
		done
		[ "$(echo $links | wc -w)" -ge $want_n ] && break
		sleep 0.1
	done
	wait $ucpid
	ucrc=$?
	# shellcheck disable=SC2086
	left=$(bpf_left link $links)
	wrong=$(echo $types | tr ' ' '\n' | grep -cvE "^(u(ret)?probe_multi)$")
	[ $form = perf ] && wrong=$(echo $types | tr ' ' '\n' | grep -cvx perf)
	if [ "$ucrc" = 0 ] && [ "$(echo $links | wc -w)" = $want_n ] && [ "$wrong" = 0 ] &&
	   [ "$left" = 0 ]; then
		pass "heap: probes as $want_n $form links while the target runs, none left after"
	else
		fail "heap: probes released" "exit $ucrc, links [$links] of types [$types] (want $want_n $form), $left left after" "$TMP/heap.links.log"
	fi
fi

if want "heap: last close"; then
	# A probe's last close waits for the kernel (50-300 ms on 6.18): it
	# must be the closer's (uringcheck-close), never uringcheck's, or every
	# run's exit waits for it. Traced (strace -f, one ordered log): each
	# descriptor the closer closes one by one was closed by uringcheck
	# first, after the closer was forked. uringcheck's wait for the
	# closer's parent is held 300 ms (strace's delay injection), so a
	# closer that closed at once, without waiting for uringcheck's closes,
	# fails this every time.
	strace -f -qq -e trace=close,prctl,clone,clone3,fork,vfork,wait4 \
		-e inject=wait4:delay_exit=300000 -o "$TMP/heap.close.trace" \
		$UC --keep-warm=0 --log-file="$TMP/heap.close.log" -- "$BIN/ok_free-inflight_after_cqe"
	ucrc=$?
	verdict=$(python3 - "$TMP/heap.close.trace" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
main = lines[0].split()[0]
closer = next((l.split()[0] for l in lines if 'PR_SET_NAME, "uringcheck-clos' in l), None)
if not closer:
    print("no closer process"); sys.exit()
# the fork that made it (its parent's clone returning its pid): before
# uringcheck's closes can be, since uringcheck waits for that parent
forked = next((i for i, l in enumerate(lines)
               if re.search(r"(clone3?|v?fork)\b.*= %s$|resumed>.*= %s$" % (closer, closer), l)),
              None)
if forked is None:
    print("the fork of the closer not in the trace"); sys.exit()
mine = [(i, int(m.group(1))) for i, l in enumerate(lines)
        if l.split()[0] == closer and (m := re.search(r"\bclose\((\d+)\b", l))]
if not mine:
    print("the closer closed nothing one by one"); sys.exit()
for i, fd in mine:
    if not any(l.split()[0] == main and re.search(r"\bclose\(%d\b" % fd, l)
               for l in lines[forked:i]):
        print("fd %d: the closer's close came before uringcheck's" % fd); sys.exit()
print("ok %d" % len(mine))
PY
)
	if [ "$ucrc" = 0 ] && [ "${verdict%% *}" = ok ]; then
		pass "heap: the probes' last close is the closer's, after uringcheck's own (${verdict#ok } descriptors)"
	else
		fail "heap: last close" "exit $ucrc, $verdict" "$TMP/heap.close.trace"
	fi
fi
