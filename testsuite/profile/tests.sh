# SPDX-License-Identifier: GPL-2.0
#
# The profile mode's tests, sourced by testsuite/run.sh (pass, fail, want,
# header, $UC and $TMP come from there).
#
# Doctor rules are declarative: each testsuite/profile/inj_*.c and ok_*.c
# begins with
#   /* uringcheck-profile-test: expect=RULE|clean [args=A,B]
#      [options=--opt=v,...] [timeout=S] */
# inj_* must be judged with exactly RULE, ok_* with nothing; both must
# exit as they do plainly (a profile never changes the exit status).

PBIN=.output/profile-tests
PY=/usr/bin/python3		# Debian's, with python3-prometheus-client

# doctor_kinds JSON: the doctor's rule names, sorted, comma-separated
doctor_kinds() {
	$PY - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(",".join(sorted(f["kind"] for f in d["findings"] if f.get("rule_type") == "doctor")))
PY
}

profile_case() {
	local src=$1 name expect args opts tmo kinds rc
	name=$(basename "$src" .c)
	expect=$(header "$src" expect)
	args=$(header "$src" args | tr ',' ' ')
	opts=$(header "$src" options | tr ',' ' ')
	tmo=$(header "$src" timeout)
	# shellcheck disable=SC2086
	timeout "${tmo:-30}" $UC --profile $opts --json="$TMP/pf.$name.json" \
		"$PBIN/$name" $args >"$TMP/pf.$name.out" 2>&1
	rc=$?
	if [ "$rc" != 0 ]; then
		fail "profile: $name" "exit $rc (the program's own status is 0)" "$TMP/pf.$name.out"
		return
	fi
	kinds=$(doctor_kinds "$TMP/pf.$name.json" 2>>"$TMP/pf.$name.out")
	[ "$expect" = clean ] && expect=""
	if [ "$kinds" = "$expect" ] && grep -qE "^==[0-9]+==doctor: [0-9]+ finding" "$TMP/pf.$name.out" &&
	   { [ -z "$expect" ] || grep -q "uringcheck: doctor: $expect: " "$TMP/pf.$name.out"; }; then
		pass "profile: $name: ${expect:-nothing} judged"
	else
		fail "profile: $name" "doctor said [$kinds], expected [${expect}]" "$TMP/pf.$name.out"
	fi
}

if want "profile: doctor"; then
	for src in testsuite/profile/inj_*.c testsuite/profile/ok_*.c; do
		[ -e "$src" ] && profile_case "$src"
	done
fi

# SQPOLL and io-wq time are told apart by kernel facts, not by names: the
# same programs built under names that would mislead a name test (a new
# io thread first runs under its creator's name) keep their split.
if want "profile: io threads"; then
	mkdir -p "$TMP/names"
	cp "$PBIN/inj_sqpoll-idle-burn" "$TMP/names/plainname"
	cp "$PBIN/inj_sqpoll-idle-burn" "$TMP/names/iou-wrk-7"
	cp "$PBIN/inj_worker-fan-out" "$TMP/names/abc_sqpoll"
	ok=1
	for exe in plainname iou-wrk-7 abc_sqpoll; do
		$UC --profile --json="$TMP/names.$exe.json" "$TMP/names/$exe" \
			>"$TMP/names.$exe.out" 2>&1 || ok=0
		$PY - "$TMP/names.$exe.json" "$exe" <<'PY' >>"$TMP/names.$exe.out" 2>&1 || ok=0
import json, sys
d = json.load(open(sys.argv[1]))
p, = d["profile"]["processes"]
if sys.argv[2] == "abc_sqpoll":		# io-wq only
    assert p["sqpoll_threads"] == 0 and p["sqpoll_oncpu_ns"] == 0, p
    assert p["iowq_workers_seen"] >= 1 and p["iowq_oncpu_ns"] > 0, p
else:					# an SQPOLL thread, no io-wq
    assert p["sqpoll_threads"] == 1 and p["sqpoll_oncpu_ns"] > 0, p
    assert p["iowq_workers_seen"] == 0 and p["iowq_oncpu_ns"] == 0, p
PY
		[ "$ok" = 1 ] || { fail "profile: io threads" "$exe: wrong split or rule" "$TMP/names.$exe.out"; break; }
	done
	[ "$ok" = 1 ] && pass "profile: io threads: SQPOLL and io-wq told apart under any program name (3 names)"
fi

# Latency quantiles unbiased on short runs: the first requests are timed
# whole, later ones one in 16; each must weigh the inverse of its chance
# to be timed, or a start-up burst of large reads becomes the median
# (testsuite/profile/latency_mix.c: 6% large, 94% small reads).
if want "profile: latency"; then
	taskset -c 0 $UC --profile --json="$TMP/lat.json" "$PBIN/latency_mix" \
		>"$TMP/lat.out" 2>&1
	rc=$?
	if [ "$rc" = 0 ] && $PY - "$TMP/lat.json" <<'PY' >>"$TMP/lat.out" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
ring, = d["profile"]["rings"]
op, = [o for o in ring["opcodes"] if o["completed"] == 16024]
l = op["latency_ns"]
# the large reads are 6%: p99 is theirs, p50 and p90 a small read's
assert 2 * l["p90"] <= l["p99"] and 2 * l["p50"] <= l["p99"], l
# the histogram stands for every request, not only the timed ones
assert 0.8 * 16024 <= sum(l["log2_histogram"]) <= 1.2 * 16024, l
PY
	then pass "profile: latency: a start-up burst does not become the median (sampled requests weighted)"
	else fail "profile: latency" "exit $rc or quantiles biased" "$TMP/lat.out"; fi
fi

# Known paths: inline NOPs, poll-armed pipe reads, punted FSYNCs and
# IOSQE_ASYNC NOPs (testsuite/profile/paths.c), counted exactly.
if want "profile: paths"; then
	$UC --profile --profile-sample=1 --json="$TMP/paths.json" "$PBIN/paths" \
		>"$TMP/paths.out" 2>&1
	rc=$?
	if [ "$rc" = 0 ] && $PY - "$TMP/paths.json" <<'PY' >>"$TMP/paths.out" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
ring, = d["profile"]["rings"]
ops = {o["opcode"]: o for o in ring["opcodes"]}
def paths(name):
    p = ops[name]["paths"]
    return (ops[name]["completed"], p["inline"], p["poll_armed"], p["punted"])
assert paths("NOP") == (110, 100, 0, 10), paths("NOP")
assert paths("READ") == (10, 0, 10, 0), paths("READ")
assert paths("FSYNC") == (10, 0, 0, 10), paths("FSYNC")
assert ops["READ"]["bytes"] == 10
assert ops["NOP"]["paths"]["punted_forced"] == 10
# every request timed (--profile-sample=1): the histogram holds them all
for o in ring["opcodes"]:
    assert sum(o["latency_ns"]["log2_histogram"]) == o["completed"], o
    assert o["latency_ns"]["p50"] <= o["latency_ns"]["max"]
assert ring["io_uring_enter"]["sqes_submitted"] == 130
# register buffers (0) once, unregister (1) twice, the second refused
reg = {r["opcode"]: r["calls"] for r in ring["registration"]}
assert reg == {0: 1, 1: 2}, reg
assert ring["registration_errors"] == 1, ring["registration_errors"]
assert all(r["time_ns"] > 0 for r in ring["registration"]), ring["registration"]
assert d["target"]["exit_status"] == 0 and d["findings"] == []
PY
	then pass "profile: paths: inline, poll-armed and punted requests counted exactly"
	else fail "profile: paths" "exit $rc or wrong counts" "$TMP/paths.out"; fi
fi

# The NOP benchmark: every request counted whatever the sampling, the
# batches seen as they are, the per-second series present.
if want "profile: counts"; then
	$UC --profile --json="$TMP/nop.json" "$PBIN/paths" >/dev/null 2>&1
	if $PY - "$TMP/nop.json" <<'PY' >"$TMP/nop.out" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
ring, = d["profile"]["rings"]
n = sum(o["completed"] for o in ring["opcodes"])
assert n == 130, n
assert len(d["profile"]["per_second"]["submitted"]) >= 1
assert d["summary"].get("doctor", {}) == {}
PY
	then pass "profile: counts: exact with the default sampling"
	else fail "profile: counts" "wrong document" "$TMP/nop.out"; fi
fi

# Fidelity against an independent count (testsuite/profile/known_work.c
# prints what it knows: its own latency measurements, bytes, punts, and
# the kernel's per-thread CPU account of its io threads). The tolerance is
# the one docs/profile.md states: counts, bytes and punts exact; p50/p99
# within the log2 bucket (a factor of two) of the program's own; SQPOLL
# and io-wq CPU time from 5% under to 25% over schedstat (the profile
# counts switch-in to switch-out: interrupts and a hypervisor's steal
# included).
if want "profile: fidelity"; then
	$UC --profile --json="$TMP/kw.json" "$PBIN/known_work" >"$TMP/kw.out" 2>&1
	rc=$?
	if [ "$rc" = 0 ] && $PY - "$TMP/kw.json" "$TMP/kw.out" <<'PY' >>"$TMP/kw.out" 2>&1
import json, re, sys
d = json.load(open(sys.argv[1]))
line, = [l for l in open(sys.argv[2]) if l.startswith("known_work: ")]
k = json.loads(line[len("known_work: "):])
rings = d["profile"]["rings"]
ops = [{o["opcode"]: o for o in r["opcodes"]} for r in rings]
pipe, = [o["READ"] for o in ops if "READ" in o and o["READ"]["bytes"] == k["pipe_reads"]]
write, = [o["WRITE"] for o in ops if "WRITE" in o]
asyn, = [o["READ"] for o in ops if "READ" in o and o["READ"]["bytes"] == k["async_read_bytes"]]
nop, = [o["NOP"] for o in ops if "NOP" in o]
# counts, bytes, punts: exact
assert pipe["completed"] == k["pipe_reads"], pipe
assert write["completed"] == k["writes"] and write["bytes"] == k["write_bytes"], write
assert asyn["completed"] == k["async_reads"], asyn
assert asyn["paths"]["punted"] == asyn["paths"]["punted_forced"] == k["async_reads"], asyn["paths"]
assert nop["completed"] == k["sqpoll_nops"], (nop["completed"], k["sqpoll_nops"])
# a known latency: within the log2 bucket of the program's own quantiles
for q in ("p50", "p99"):
    mine, theirs = pipe["latency_ns"][q], k["read_" + q + "_ns"]
    assert theirs / 2 <= mine <= theirs * 2, (q, mine, theirs)
# the CPU split: SQPOLL and io-wq each against the kernel's schedstat
p, = d["profile"]["processes"]
assert p["sqpoll_threads"] == k["sqpoll_threads"] == 1, p
assert p["iowq_workers_seen"] >= k["iowq_threads"] >= 1, p
for what in ("sqpoll_oncpu_ns", "iowq_oncpu_ns"):
    mine, theirs = p[what], k[what]
    assert 0.95 * theirs - 2e6 <= mine <= 1.25 * theirs + 5e6, (what, mine, theirs)
print("fidelity:", {q: (pipe["latency_ns"][q], k["read_" + q + "_ns"]) for q in ("p50", "p99")},
      {w: (p[w], k[w]) for w in ("sqpoll_oncpu_ns", "iowq_oncpu_ns")})
PY
	then pass "profile: fidelity: requests, bytes, punts exact; p50/p99 and the SQPOLL/io-wq CPU split within the stated tolerance"
	else fail "profile: fidelity" "exit $rc or a figure outside its tolerance" "$TMP/kw.out"; fi
fi

# uringscope's pathology scenarios (testsuite/pathology/run.sh), when
# its injector has been built (make uringscope-src: a clone, never
# committed); said skipped otherwise.
if want "profile: pathology"; then
	URINGCHECK=$UC PATHOLOGY_OUT="$TMP/pathology" testsuite/pathology/run.sh \
		>"$TMP/pathology.out" 2>&1
	rc=$?
	if [ "$rc" = 77 ]; then
		pass "profile: pathology (skipped: $(sed 's/^pathology: skipped: //' "$TMP/pathology.out"))"
	elif [ "$rc" = 0 ]; then
		pass "profile: pathology: uringscope's scenarios, $(tail -1 "$TMP/pathology.out" | sed 's/^pathology: //; s/ (.*//')"
	else fail "profile: pathology" "a scenario not named by its rule or kind" "$TMP/pathology.out"; fi
fi

# A long-running program to attach to (it exits by itself).
pf_background() {
	"$PBIN/nop_loop" "$1" &
	PF_BG=$!
	sleep 0.3
}

if want "profile: attach"; then
	pf_background 3
	$UC -p "$PF_BG" -d 1 --json="$TMP/att.json" >"$TMP/att.out" 2>&1
	rc=$?
	if [ "$rc" = 0 ] && $PY - "$TMP/att.json" "$PF_BG" <<'PY' >>"$TMP/att.out" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["target"] == {"pid": int(sys.argv[2]), "attached": True}, d["target"]
assert d["mode"] == "profile" and d["summary"]["findings"]["overlap"] == 0
ring, = d["profile"]["rings"]
assert ring["pid"] == int(sys.argv[2]) and not ring["created_during_profile"]
assert ring["opcodes"][0]["completed"] > 1000, ring["opcodes"]
assert ring["io_uring_enter"]["calls"] > 10
assert 0.9 < d["profile"]["window_s"] < 2.5
PY
	then pass "profile: -p PID -d 1 finds the rings a running process made earlier"
	else fail "profile: -p" "exit $rc or wrong document" "$TMP/att.out"; fi
	kill "$PF_BG" 2>/dev/null; wait "$PF_BG" 2>/dev/null

	# -a: every process; Ctrl-C (SIGINT) ends it with a report
	pf_background 3
	$UC -a --json="$TMP/all.json" >"$TMP/all.out" 2>&1 &
	pfa=$!
	sleep 1.2
	kill -INT $pfa
	wait $pfa
	rc=$?
	# whole-run lines (the fidelity note among them) carry uringcheck's
	# own pid, never ==0==
	if [ "$rc" = 0 ] && ! grep -q '^==0==' "$TMP/all.out" &&
	   $PY - "$TMP/all.json" "$PF_BG" <<'PY' >>"$TMP/all.out" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["target"] == {"all_processes": True}
assert any(r["pid"] == int(sys.argv[2]) and r["opcodes"] for r in d["profile"]["rings"])
PY
	then pass "profile: -a sees another process's ring, SIGINT ends it with a report"
	else fail "profile: -a" "exit $rc or its ring missing" "$TMP/all.out"; fi
	kill "$PF_BG" 2>/dev/null; wait "$PF_BG" 2>/dev/null
fi

# Ring slots: a closed ring's slot is freed for the next ring, its
# figures kept exact (testsuite/profile/ring_churn.c: 40 short-lived rings
# of 4 NOPs 20 ms apart, then one doing 1000 NOPs and 100 WRITEs of 4096
# bytes, under --profile-rings=8: 160 ms for uringcheck's collector to
# free a slot, on a loaded machine). Before slots were freed, the 9th ring
# on went unprofiled and with it the long-lived one.
pf_churn_check() {	# JSON PID CLOSED_RINGS [FOLD]: the churn's rings, exactly
	$PY - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pid, closed = int(sys.argv[2]), int(sys.argv[3])
rings = [r for r in d["profile"]["rings"] if r["pid"] == pid]
ops = lambda r: {o["opcode"]: o for o in r["opcodes"]}
short = [r for r in rings if set(ops(r)) == {"NOP"} and ops(r)["NOP"]["completed"] == 4]
long_, = [r for r in rings if "WRITE" in ops(r)]
# FOLD: other processes' closed rings (-a) may have filled the 256 rows
# kept one by one, and the rest of the churn's went into the added-up row
folded = sum(r.get("folded_rings", 0) for r in d["profile"]["rings"] if r["fd"] == -2)
if len(sys.argv) > 4 and folded:
    assert len(short) <= closed and len(rings) == len(short) + 1, (len(short), len(rings))
else:
    assert len(short) == closed and len(rings) == closed + 1, (len(short), len(rings))
assert all(r["closed"] for r in short), "a short-lived ring not seen closed"
o = ops(long_)
assert o["NOP"]["submitted"] == o["NOP"]["completed"] == 1000, o["NOP"]
assert o["WRITE"]["completed"] == 100 and o["WRITE"]["bytes"] == 409600, o["WRITE"]
assert long_["io_uring_enter"]["sqes_submitted"] == 1100, long_["io_uring_enter"]
PY
}

if want "profile: slots"; then
	$UC --profile --profile-rings=8 --json="$TMP/slots.json" "$PBIN/ring_churn" 40 \
		>"$TMP/slots.out" 2>&1
	rc=$?
	pid=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["target"]["pid"])' \
		"$TMP/slots.json" 2>>"$TMP/slots.out")
	if [ "$rc" = 0 ] && pf_churn_check "$TMP/slots.json" "$pid" 40 >>"$TMP/slots.out" 2>&1 &&
	   $PY -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["profile"]["fidelity"]["rings_unprofiled"] == 0, d["profile"]["fidelity"]
assert d["findings"] == [], d["findings"]' "$TMP/slots.json" >>"$TMP/slots.out" 2>&1 &&
	   ! grep -q 'went unprofiled' "$TMP/slots.out"; then
		pass "profile: slots: 41 rings through 8 slots, each closed ring's figures kept, the last exact"
	else fail "profile: slots" "exit $rc, a ring missing or inexact" "$TMP/slots.out"; fi

	# -a: the same churn among whatever else runs on the machine (its
	# rings take slots too, so there are more): the churn's rings
	# only are judged, the long-lived one while still open.
	$UC -a --profile-rings=32 --json="$TMP/slotsa.json" >"$TMP/slotsa.out" 2>&1 &
	pfa=$!
	sleep 1
	"$PBIN/ring_churn" 100 1 2 &
	churn=$!
	sleep 4
	kill -INT $pfa
	wait $pfa
	rc=$?
	wait $churn
	if [ "$rc" = 0 ] && pf_churn_check "$TMP/slotsa.json" "$churn" 100 fold >>"$TMP/slotsa.out" 2>&1; then
		pass "profile: slots: -a keeps profiling new rings after 100 short-lived ones passed through its 32 slots"
	else fail "profile: slots -a" "exit $rc, the churn's rings missing or inexact" "$TMP/slotsa.out"; fi

	# The slots cannot grow once loaded: -a sizes them to the CPUs
	# unless told (64 MiB of tables: more than 32 on this 2-4 CPU kind of
	# machine), one program gets 32, and a given number is kept.
	$UC -a -d 1 --json="$TMP/slotsz.json" >"$TMP/slotsz.out" 2>&1
	if $PY - "$TMP/slotsz.json" "$TMP/slotsa.json" "$TMP/slots.json" \
		>>"$TMP/slotsz.out" 2>&1 <<'PY'
import json, os, sys
n = [json.load(open(f))["profile"]["fidelity"]["profile_rings"] for f in sys.argv[1:]]
cpus = os.cpu_count()
assert n[1] == 32 and n[2] == 8, n		# given
assert 32 <= n[0] <= 4096 and (n[0] > 32 or cpus > 64), (n, cpus)
PY
	then pass "profile: slots: -a sizes its slots to the CPUs ($($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["profile"]["fidelity"]["profile_rings"])' "$TMP/slotsz.json") here), a given --profile-rings is kept"
	else fail "profile: slots sizing" "wrong profile_rings" "$TMP/slotsz.out"; fi

	# Past 256 closed rings, the rest are added up in one row: totals
	# exact, said by the fidelity note, and a valid /metrics series
	# (promtool) while the program still runs.
	port=$((20000 + RANDOM % 20000))
	$UC --profile --profile-rings=32 --metrics=127.0.0.1:$port --json="$TMP/fold.json" \
		"$PBIN/ring_churn" 300 1 3 5 >"$TMP/fold.out" 2>&1 &
	pff=$!
	for _ in $(seq 60); do
		sleep 0.25
		curl -s "http://127.0.0.1:$port/metrics" >"$TMP/fold.prom" 2>/dev/null
		grep -q 'ring="closed"' "$TMP/fold.prom" && break
	done
	sleep 0.5	# the long-lived ring's work
	curl -s "http://127.0.0.1:$port/metrics" >"$TMP/fold.prom"
	wait $pff
	rc=$?
	if [ "$rc" = 0 ] && promtool check metrics <"$TMP/fold.prom" >>"$TMP/fold.out" 2>&1 &&
	   grep -q '^uringcheck_requests_completed_total{pid="",ring="closed",opcode="NOP"} [1-9]' "$TMP/fold.prom" &&
	   grep -q 'closed rings are added up in one row' "$TMP/fold.out" &&
	   $PY - "$TMP/fold.json" <<'PY' >>"$TMP/fold.out" 2>&1
import json, sys
p = json.load(open(sys.argv[1]))["profile"]
folded, = [r for r in p["rings"] if r["fd"] == -2]
assert folded["folded_rings"] == p["fidelity"]["rings_folded"] >= 1, folded
assert len(p["rings"]) - 1 + folded["folded_rings"] == 301, len(p["rings"])
assert p["fidelity"]["rings_unprofiled"] == 0, p["fidelity"]
assert sum(o["completed"] for r in p["rings"] for o in r["opcodes"]) == 300 * 4 + 1100
assert sum(p["per_second"]["completed"]) == 300 * 4 + 1100, p["per_second"]
PY
	then pass "profile: slots: 300 closed rings: 256 rows and one added up, totals exact, promtool accepts it"
	else
		cat "$TMP/fold.prom" >>"$TMP/fold.out" 2>/dev/null
		fail "profile: slots folded" "exit $rc, totals or series wrong" "$TMP/fold.out"
	fi

	# A ring left out is said at once: on stderr and in /metrics while
	# the program still runs (two rings open at once, one slot).
	port=$((20000 + RANDOM % 20000))
	$UC --profile --profile-rings=1 --metrics=127.0.0.1:$port "$PBIN/ring_churn" 0 2 3 \
		>"$TMP/slotsm.out" 2>&1 &
	pfm=$!
	sleep 1.5
	curl -s "http://127.0.0.1:$port/metrics" >"$TMP/slotsm.prom"
	cp "$TMP/slotsm.out" "$TMP/slotsm.early"
	wait $pfm
	rc=$?
	if [ "$rc" = 0 ] &&
	   grep -q '^uringcheck_profile_missed_total{what="rings_unprofiled"} 1$' "$TMP/slotsm.prom" &&
	   grep -q '^uringcheck: profile: a ring went unprofiled: all --profile-rings=1 slots' "$TMP/slotsm.early" &&
	   [ "$(grep -c 'went unprofiled' "$TMP/slotsm.out")" = 1 ] &&
	   grep -q 'doctor: fidelity: ' "$TMP/slotsm.out"; then
		pass "profile: slots: a ring left out is said at once (stderr, /metrics), then in the report"
	else
		cat "$TMP/slotsm.prom" >>"$TMP/slotsm.out"
		fail "profile: slots unprofiled" "exit $rc, not said while running" "$TMP/slotsm.out"
	fi
fi

if want "profile: live"; then
	$UC --profile -i 1 "$PBIN/nop_loop" 2 >"$TMP/live.out" 2>&1
	if grep -Eq '^ +1\.0s NOP +[0-9]{4,}' "$TMP/live.out" &&
	   grep -qE '^==[0-9]+==uringcheck profile:' "$TMP/live.out"; then
		pass "profile: -i 1 prints a live row per second, then the report"
	else
		fail "profile: -i" "no live NOP row" "$TMP/live.out"
	fi
fi

if want "profile: metrics"; then
	port=$((20000 + RANDOM % 20000))
	$UC --profile --metrics=127.0.0.1:$port "$PBIN/nop_loop" 2 >"$TMP/met.out" 2>&1 &
	pfm=$!
	sleep 1
	curl -s "http://127.0.0.1:$port/metrics" >"$TMP/m.prom"
	curl -s -H 'Accept: application/openmetrics-text; version=1.0.0' \
		"http://127.0.0.1:$port/metrics" >"$TMP/m.om"
	code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/other")
	wait $pfm
	if promtool check metrics <"$TMP/m.prom" >"$TMP/promtool.out" 2>&1 &&
	   grep -q '^uringcheck_requests_completed_total{.*opcode="NOP"} [1-9]' "$TMP/m.prom" &&
	   $PY -c 'import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as p
fams = {f.name: f for f in p(open(sys.argv[1]).read())}
assert fams["uringcheck_request_latency_seconds"].type == "histogram"
assert fams["uringcheck_requests_completed"].type == "counter"' "$TMP/m.om" >>"$TMP/promtool.out" 2>&1 &&
	   [ "$code" = 404 ]; then
		pass "profile: --metrics: promtool accepts the text format, OpenMetrics parses, 404 elsewhere"
	else
		cat "$TMP/met.out" >>"$TMP/promtool.out"
		fail "profile: --metrics" "promtool or OpenMetrics parser refused (http $code)" "$TMP/promtool.out"
	fi
fi

if want "profile: with check"; then
	$UC --profile --check --json="$TMP/both.json" "$BIN/inj_read_read" >"$TMP/both.out" 2>&1
	rc=$?
	if [ "$rc" = 66 ] && grep -q 'ERROR: uringcheck: overlap' "$TMP/both.out" &&
	   grep -q 'WARNING: uringcheck: doctor: hazards: the checker found 1 overlap' "$TMP/both.out" &&
	   $PY -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["mode"] == "check+profile"
kinds = sorted((f["kind"], f["rule_type"]) for f in d["findings"])
assert kinds == [("hazards", "doctor"), ("overlap", "hazard")], kinds
assert d["summary"]["doctor"] == {"hazards": 1} and d["profile"]["rings"]' "$TMP/both.json" \
		>>"$TMP/both.out" 2>&1; then
		pass "profile: --profile --check: the checker's error fails the run, the doctor names it"
	else
		fail "profile: --profile --check" "exit $rc, no doctor line or JSON" "$TMP/both.out"
	fi
	# left-in-flight: the checker's teardown report reaches the doctor
	$UC --profile --check "$BIN/inj_left-in-flight_close_continue" >"$TMP/lif.out" 2>&1
	$UC --profile --check "$BIN/ok_reuse_after_completion" >"$TMP/lok.out" 2>&1
	if grep -q 'WARNING: uringcheck: doctor: left-in-flight: ' "$TMP/lif.out" &&
	   grep -q 'doctor: 0 findings' "$TMP/lok.out"; then
		pass "profile: --profile --check: left-in-flight named by the doctor, a clean program not"
	else
		cat "$TMP/lok.out" >>"$TMP/lif.out"
		fail "profile: --profile --check left-in-flight" "see below" "$TMP/lif.out"
	fi
	# the doctor's findings in SARIF, beside the rules of the hazard kinds
	$UC --profile --sarif="$TMP/d.sarif" "$PBIN/inj_batching" >/dev/null 2>&1
	if $PY -c 'import json, sys
d = json.load(open(sys.argv[1]))
run = d["runs"][0]
rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
res, = run["results"]
assert res["ruleId"] == "batching" and rules[res["ruleIndex"]] == "batching", (res, rules)
assert res["level"] == "note"' "$TMP/d.sarif" >"$TMP/ds.out" 2>&1; then
		pass "profile: the doctor's findings are SARIF results with their rules"
	else fail "profile: SARIF" "see below" "$TMP/ds.out"; fi
fi

# The profile alone reports as the checker does (one run loop): every
# line with its ==PID==, --max-reports, --srcroot and its default.
if want "profile: alone"; then
	$UC --profile --max-reports=0 --sarif="$TMP/pa.sarif" "$PBIN/inj_batching" \
		>"$TMP/pa.out" 2>&1
	$UC --profile --srcroot=/tmp --sarif="$TMP/pb.sarif" "$PBIN/inj_batching" \
		>"$TMP/pb.out" 2>&1
	unprefixed=$(grep -cvE '^(==[0-9]+==|$)' "$TMP/pa.out")
	if [ "$unprefixed" = 0 ] &&
	   grep -qE '^==[0-9]+==uringcheck: 1 of them not shown \(--max-reports=0\)' "$TMP/pa.out" &&
	   ! grep -q 'NOTE: uringcheck: doctor: batching' "$TMP/pa.out" &&
	   grep -q 'NOTE: uringcheck: doctor: batching' "$TMP/pb.out" &&
	   $PY -c 'import json, os, sys
base = lambda f: json.load(open(f))["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"]
assert base(sys.argv[1]) == "file://" + os.getcwd() + "/", base(sys.argv[1])
assert base(sys.argv[2]) == "file:///tmp/", base(sys.argv[2])' "$TMP/pa.sarif" "$TMP/pb.sarif" \
		>>"$TMP/pa.out" 2>&1; then
		pass "profile: alone: ==PID== on every line, --max-reports and --srcroot honoured"
	else
		fail "profile: alone" "$unprefixed lines without ==PID==, or --max-reports/--srcroot ignored" "$TMP/pa.out"
	fi
fi

# Bad input: a clear error and the usage status, or the not-found status.
pf_status() {
	local name=$1 want=$2
	shift 2
	"$@" >"$TMP/pfs.out" 2>&1
	local rc=$?
	if [ "$rc" = "$want" ] && grep -q '^uringcheck: ' "$TMP/pfs.out"; then pass "profile: $name"
	else fail "profile: $name" "exit $rc, expected $want" "$TMP/pfs.out"; fi
}
if want "profile: errors"; then
	pf_status "-p of no process is 'not found'" 127 $UC -p 999999999
	pf_status "-p with a program is a usage error" 2 $UC -p 1 true
	pf_status "--check attaches to one process, not to all (-a)" 2 $UC -a --check
	pf_status "-p and -a exclude each other" 2 $UC -p 1 -a
	pf_status "--profile-sample must be a power of two" 2 $UC --profile --profile-sample=3 true
	pf_status "-d needs -p or -a" 2 $UC --profile -d 1 true
	pf_status "--metrics needs [HOST:]PORT" 2 $UC --profile --metrics=nowhere:x true
	pf_status "--metrics on a host that is not this one" 70 $UC --profile --metrics=192.0.2.1:9 true
fi
