# SPDX-License-Identifier: GPL-2.0
#
# The trace mode's tests, sourced by testsuite/run.sh (pass, fail, want,
# $UC, $BIN and $TMP come from there). No browser: the file must decode
# with protoc against trace/uringcheck_perfetto.proto, and validate.py
# checks its structure and the paths of known workloads.

TBIN=.output/trace-tests
PY=/usr/bin/python3		# Debian's, with python3-protobuf
PROTO=trace/uringcheck_perfetto.proto

# The Python module validate.py decodes with, made once for whichever
# trace test runs first (a filter naming one test must still get it).
pb2_ready() {
	[ -f "$TMP/pb2/uringcheck_perfetto_pb2.py" ] && return 0
	mkdir -p "$TMP/pb2"
	protoc --python_out="$TMP/pb2" --proto_path=trace "$PROTO" 2>"$TMP/protoc.err" && return 0
	fail "trace: protoc --python_out" "cannot generate" "$TMP/protoc.err"
	return 1
}

# trace_check NAME MODE CMD...: runs CMD under --trace, decodes, validates
# (against the event file $TRACE_CSV too, when set)
trace_check() {
	local name=$1 mode=$2
	shift 2
	pb2_ready || return 1
	"$@" >"$TMP/tr.$name.out" 2>&1
	echo "exit $?" >>"$TMP/tr.$name.out"
	if protoc --decode=perfetto.protos.Trace --proto_path=trace "$PROTO" \
		<"$TMP/tr.$name.pftrace" >"$TMP/tr.$name.txt" 2>>"$TMP/tr.$name.out" &&
	   $PY testsuite/trace/validate.py "$TMP/tr.$name.pftrace" "$TMP/pb2" "$mode" \
		${TRACE_CSV:+"$TRACE_CSV"} >>"$TMP/tr.$name.out" 2>&1; then
		return 0
	fi
	return 1
}

if want "trace: workload"; then
	if TRACE_CSV="$TMP/ev.csv" trace_check workload workload \
		$UC --trace="$TMP/tr.workload.pftrace" --events="$TMP/ev.csv" "$TBIN/workload" &&
	   grep -q '^matches the event file' "$TMP/tr.workload.out" &&
	   grep -q '^exit 0$' "$TMP/tr.workload.out" &&
	   $PY - "$TMP/ev.csv" <<'PY' >>"$TMP/tr.workload.out" 2>&1
import csv, sys
from collections import Counter
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows[0]) == 38, len(rows[0])
types = Counter(r["event_type"] for r in rows)
assert types["SUBMIT"] == 9, types
assert types["COMPLETE"] >= 12, types          # three multishot CQEs more
assert types["ENTER"] >= 6 and types["WORKER"] >= 1 and types["PUNT"] >= 1, types
for r in rows:
    if r["event_type"] == "COMPLETE" and r["req_ptr"]:
        assert int(r["latency_ns"]) > 0 and r["opcode"], r
    if r["event_type"] == "SUBMIT":
        assert r["ring_fd"] == "3" and r["ring_ptr"].startswith("0x"), r
recv = [r for r in rows if r["event_type"] == "COMPLETE" and r["user_data"] == "77"]
assert len(recv) == 4 and [r["result"] for r in recv][:3] == ["3", "3", "3"], recv
PY
	then pass "trace: workload: decodes (deltas, interning, defaults, counters on events) to the CSV's values; nests, flows end, each path, chains, multishot"
	else fail "trace: workload" "see below" "$TMP/tr.workload.out"; fi
fi

if want "trace: paths"; then
	if trace_check paths paths $UC --trace="$TMP/tr.paths.pftrace" \
		--events="$TMP/ev.jsonl" --profile .output/profile-tests/paths &&
	   $PY -c 'import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert sum(r["event_type"] == "SUBMIT" for r in rows) == 130
assert all(isinstance(r["timestamp_ns"], int) for r in rows)' "$TMP/ev.jsonl" >>"$TMP/tr.paths.out" 2>&1; then
		pass "trace: paths.c under --profile --trace: 100 inline, 10 poll-armed, 20 punted; JSON lines"
	else fail "trace: paths" "see below" "$TMP/tr.paths.out"; fi
fi

if want "trace: finding"; then
	if trace_check finding "" $UC --trace="$TMP/tr.finding.pftrace" "$BIN/inj_read_read" &&
	   grep -q '^exit 66$' "$TMP/tr.finding.out" &&
	   grep -q 'name: "uringcheck: overlap"' "$TMP/tr.finding.txt" &&
	   grep -q 'string_value: "overlap READ/READ.*inj_read_read.c' "$TMP/tr.finding.txt"; then
		pass "trace: a hazard is an instant on its request, with the symbolized stack"
	else fail "trace: finding" "no overlap instant with a stack" "$TMP/tr.finding.out"; fi
fi

if want "trace: sample"; then
	# one request in 4, each whole: every submit has its complete
	if TRACE_CSV="$TMP/s.csv" trace_check sample "" $UC --trace="$TMP/tr.sample.pftrace" --sample=4 \
		--events="$TMP/s.csv" "$BIN/../profile-tests/nop_loop" 0.2 &&
	   $PY - "$TMP/s.csv" <<'PY' >>"$TMP/tr.sample.out" 2>&1
import csv, sys
from collections import Counter
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
sub = {r["req_ptr"] + r["timestamp_ns"] for r in rows if r["event_type"] == "SUBMIT"}
c = Counter(r["event_type"] for r in rows)
assert c["SUBMIT"] > 100 and abs(c["SUBMIT"] - c["COMPLETE"]) <= 1, c
PY
	then pass "trace: --sample=4 keeps whole requests"
	else fail "trace: --sample" "see below" "$TMP/tr.sample.out"; fi
fi

if want "trace: size"; then
	# NOPs in batches: 161 bytes per request before the compact encoding
	# (deltas, interned values, counters on events, defaults), 119 after,
	# 74 with flows only for requests that leave the inline path and one
	# "CQEs consumed" instant per system call
	$UC --trace="$TMP/tr.size.pftrace" "$BIN/../profile-tests/nop_loop" 0.2 \
		>"$TMP/tr.size.out" 2>&1
	bpr=$(sed -n 's/.*trace: \([0-9]*\) requests,.*MB, \([0-9]*\) bytes per request).*/\2/p' \
		"$TMP/tr.size.out")
	reqs=$(sed -n 's/.*trace: \([0-9]*\) requests,.*/\1/p' "$TMP/tr.size.out")
	size=$(stat -c %s "$TMP/tr.size.pftrace" 2>/dev/null || echo 0)
	if [ -n "$bpr" ] && [ "${reqs:-0}" -gt 1000 ] &&
	   [ $(( (size + reqs / 2) / reqs )) = "$bpr" ] && [ "$bpr" -le 100 ]; then
		pass "trace: $bpr bytes per request on NOP batches (at most 100), said on stderr"
	else fail "trace: size" "${bpr:-no} bytes per request said, file $size for ${reqs:-?} requests" \
		"$TMP/tr.size.out"; fi
fi

if want "trace: lost"; then
	# a 1 MiB buffer and a busy program: losses are counted and said
	$UC --trace="$TMP/tr.lost.pftrace" --trace-buffer=1 "$BIN/../profile-tests/nop_loop" 1 \
		>"$TMP/tr.lost.out" 2>&1
	if protoc --decode=perfetto.protos.Trace --proto_path=trace "$PROTO" \
		<"$TMP/tr.lost.pftrace" >"$TMP/tr.lost.txt" 2>>"$TMP/tr.lost.out"; then
		if grep -q 'WARNING: uringcheck: trace: [0-9]* records lost' "$TMP/tr.lost.out"; then
			if grep -q 'events lost (the timeline lacks them)' "$TMP/tr.lost.txt"; then
				pass "trace: records lost under load are counted on stderr and in the trace"
			else fail "trace: lost" "stderr says lost, the trace does not" "$TMP/tr.lost.out"; fi
		elif grep -q 'no events lost' "$TMP/tr.lost.txt"; then
			pass "trace: nothing lost even with a 1 MiB buffer (the trace says so)"
		else fail "trace: lost" "no loss line either way" "$TMP/tr.lost.out"; fi
	else fail "trace: lost" "does not decode" "$TMP/tr.lost.out"; fi
fi

if want "trace: errors"; then
	$UC --events="$TMP/x.txt" true >"$TMP/te.out" 2>&1
	rc=$?
	if [ "$rc" = 2 ] && grep -q 'must end in .csv or .jsonl' "$TMP/te.out"; then
		pass "trace: --events names its formats"
	else fail "trace: --events=x.txt" "exit $rc" "$TMP/te.out"; fi
	$UC --sample=2 true >"$TMP/te.out" 2>&1
	rc=$?
	if [ "$rc" = 2 ]; then pass "trace: --sample without --trace is a usage error"
	else fail "trace: --sample alone" "exit $rc" "$TMP/te.out"; fi
fi
