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

	# The same, beside another instance profiling a busy ring: ring
	# teardowns (kernel workers) then end tens of ms after the closes,
	# the last short-lived ring's after the program's exit. The run waits
	# for the teardowns of exited processes' rings: all 40 seen closed
	# (without that wait, 9 of 10 such runs failed).
	$UC --keep-warm=0 --profile -- "$PBIN/nop_loop" 30 >/dev/null 2>&1 &
	busy=$!
	sleep 0.5
	$UC --profile --profile-rings=8 --json="$TMP/slotsb.json" "$PBIN/ring_churn" 40 \
		>"$TMP/slotsb.out" 2>&1
	rc=$?
	kill -INT $busy 2>/dev/null
	wait $busy
	pid=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["target"]["pid"])' \
		"$TMP/slotsb.json" 2>>"$TMP/slotsb.out")
	if [ "$rc" = 0 ] && pf_churn_check "$TMP/slotsb.json" "$pid" 40 >>"$TMP/slotsb.out" 2>&1; then
		pass "profile: slots: beside a busy ring, every closed ring seen closed (teardowns waited for)"
	else fail "profile: slots beside a busy ring" "exit $rc, a ring missing or not seen closed" "$TMP/slotsb.out"; fi

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
	pf_status "--check -a with a program is a usage error" 2 $UC -a --check true
	pf_status "-p and -a exclude each other" 2 $UC -p 1 -a
	pf_status "--profile-sample must be a power of two" 2 $UC --profile --profile-sample=3 true
	pf_status "-d needs -p or -a" 2 $UC --profile -d 1 true
	pf_status "--metrics needs [HOST:]PORT" 2 $UC --profile --metrics=nowhere:x true
	pf_status "--metrics on a host that is not this one" 70 $UC --profile --metrics=192.0.2.1:9 true
fi

# --baseline then --diff (testsuite/profile/diff_load.c): a baseline of
# the fast run; the slow run (its READs flagged IOSQE_ASYNC) must be
# named READ, slower and punted, with the doctor's punt-ratio new; the
# fast run again must show no punt change for READ. Timing changes are
# asserted only where an io-wq hop makes them several-fold (the slowed
# READ): a few-millisecond run on a shared CI machine moved an unchanged
# opcode's p50 by 2x, the threshold, now and then.
if want "profile: diff"; then
	$UC --profile --baseline="$TMP/base.json" "$PBIN/diff_load" fast >"$TMP/base.out" 2>&1
	rc1=$?
	$UC --profile --diff="$TMP/base.json" --json="$TMP/slow.json" "$PBIN/diff_load" slow \
		>"$TMP/slow.out" 2>&1
	rc2=$?
	$UC --profile --diff="$TMP/base.json" "$PBIN/diff_load" fast >"$TMP/same.out" 2>&1
	rc3=$?
	if [ "$rc1$rc2$rc3" = 000 ] &&
	   grep -qE '^==[0-9]+==  READ .*slower \(p(50|99) [0-9.]+x\).*punt \+[0-9]+ points' "$TMP/slow.out" &&
	   ! grep -qE '^==[0-9]+==  NOP .*punt' "$TMP/slow.out" &&
	   grep -qE '^==[0-9]+==  doctor: new since the baseline: punt-ratio \(warning\)' "$TMP/slow.out" &&
	   grep -qE '^==[0-9]+==  READ ' "$TMP/same.out" &&
	   ! grep -qE '^==[0-9]+==  READ .*punt' "$TMP/same.out" &&
	   $PY - "$TMP/base.json" "$TMP/slow.json" <<'PY' >>"$TMP/slow.out" 2>&1
import json, sys
b = json.load(open(sys.argv[1]))
assert b["schema"] == 2 and b["mode"] == "profile" and b["profile"]["rings"], b.keys()
d = json.load(open(sys.argv[2]))["profile"]["diff"]
ops = {o["opcode"]: o for o in d["opcodes"]}
assert {"slower", "punt_up"} <= set(ops["READ"]["changes"]), ops["READ"]
assert ops["READ"]["baseline"]["punt_percent"] == 0 and ops["READ"]["run"]["punt_percent"] == 100
assert "punt_up" not in ops["NOP"]["changes"], ops["NOP"]
assert d["doctor"] == {"new": ["punt-ratio"], "gone": []}, d["doctor"]
assert d["thresholds"]["latency_ratio"] == 2
PY
	then pass "profile: --baseline/--diff: the slowed opcode named (slower, punted), an unchanged run not"
	else
		cat "$TMP/same.out" >>"$TMP/slow.out"
		fail "profile: --diff" "exit $rc1/$rc2/$rc3, or the slowed READ not named" "$TMP/slow.out"
	fi
fi

# --fail-on=doctor:SEV: the doctor's verdict in the exit status, for CI.
if want "profile: fail-on doctor"; then
	st() { "$@" >"$TMP/fod.out" 2>&1; echo $?; }
	a=$(st $UC --profile --fail-on=doctor:warning "$PBIN/inj_punt-ratio")
	grep -qE '^==[0-9]+==uringcheck: --fail-on=doctor:warning: the doctor.s findings fail the run \(exit status 66\)' \
		"$TMP/fod.out" || a="$a (no reason given)"
	b=$(st $UC --profile --fail-on=doctor:warning "$PBIN/ok_punt-ratio")
	c=$(st $UC --profile --fail-on=doctor:warning "$PBIN/inj_batching")	# a note
	d=$(st $UC --profile --fail-on=doctor:note --error-exitcode=9 "$PBIN/inj_batching")
	e=$(st $UC --profile "$PBIN/inj_punt-ratio")	# no gate: the program's status
	f=$(st env URINGCHECK_OPTIONS="--fail-on=doctor:warning" $UC --profile "$PBIN/inj_punt-ratio")
	if [ "$a $b $c $d $e $f" = "66 0 0 9 0 66" ]; then
		pass "profile: --fail-on=doctor:SEV fails on an injection at or above SEV, not on its ok_ twin"
	else
		fail "profile: --fail-on=doctor" "statuses [$a $b $c $d $e $f], expected [66 0 0 9 0 66]" "$TMP/fod.out"
	fi
fi

# -e/--filter: a display filter that says what it hid.
if want "profile: filter"; then
	$UC --profile -e op=READ "$PBIN/diff_load" fast >"$TMP/flt1.out" 2>&1
	$UC --profile --filter=punt "$PBIN/diff_load" slow >"$TMP/flt2.out" 2>&1
	$UC --profile -e error "$PBIN/diff_load" fast >"$TMP/flt3.out" 2>&1
	$UC --profile -e error "$PBIN/inj_error-flood" >"$TMP/flt4.out" 2>&1
	$UC --profile -i 1 -e op=READ "$PBIN/nop_loop" 1.5 >"$TMP/flt5.out" 2>&1
	row() { grep -cE "^==[0-9]+==  $1 +[0-9]+ " "$2"; }
	got="$(row READ "$TMP/flt1.out")$(row NOP "$TMP/flt1.out") $(row READ "$TMP/flt2.out")$(row NOP "$TMP/flt2.out") $(row READ "$TMP/flt3.out")$(row NOP "$TMP/flt3.out") $(row READ "$TMP/flt4.out")"
	if [ "$got" = "10 10 00 1" ] &&
	   grep -qE '^==[0-9]+==1 opcode row hidden by -e/--filter' "$TMP/flt1.out" &&
	   grep -qE '^==[0-9]+==2 opcode rows hidden by -e/--filter' "$TMP/flt3.out" &&
	   grep -qE '^==[0-9]+==  errors: READ -EBADF x 512' "$TMP/flt4.out" &&
	   grep -q 'doctor: error-flood' "$TMP/flt4.out" &&
	   grep -qE '^ +1\.0s \(1 opcode hidden by -e/--filter\)' "$TMP/flt5.out" &&
	   ! grep -qE '^ +1\.0s NOP' "$TMP/flt5.out"; then
		pass "profile: -e op=/punt/error: other opcodes hidden and counted (report, -i), the doctor unchanged"
	else
		cat "$TMP/flt2.out" "$TMP/flt3.out" "$TMP/flt5.out" >>"$TMP/flt1.out"
		fail "profile: -e" "rows READ/NOP per run [$got], expected [10 10 00 1]" "$TMP/flt1.out"
	fi
fi

# -c: one table as strace -c, its errors column counting the injection.
if want "profile: compact"; then
	$UC --profile -c "$PBIN/inj_error-flood" >"$TMP/cmp1.out" 2>&1
	$UC --profile -c "$PBIN/diff_load" fast >"$TMP/cmp2.out" 2>&1
	if grep -qE '^==[0-9]+==% time +seconds +avg +p99 +requests +errors opcode$' "$TMP/cmp1.out" &&
	   grep -qE '^==[0-9]+==100\.00 +[0-9.]+ +[0-9.]+[num]?s +[0-9.]+[num]?s +512 +512 READ$' "$TMP/cmp1.out" &&
	   grep -qE '^==[0-9]+== *[0-9.]+ +[0-9.]+ +.* 2048 +NOP$' "$TMP/cmp2.out" &&
	   grep -qE '^==[0-9]+==100\.00 +[0-9.]+ +4096 +0 total$' "$TMP/cmp2.out" &&
	   ! grep -qE 'ring fd|io_uring_enter:|^==[0-9]+==process ' "$TMP/cmp1.out" "$TMP/cmp2.out" &&
	   grep -q 'doctor: error-flood' "$TMP/cmp1.out"; then
		pass "profile: -c: one table, errors counted, no per-ring report"
	else
		cat "$TMP/cmp2.out" >>"$TMP/cmp1.out"
		fail "profile: -c" "see below" "$TMP/cmp1.out"
	fi
fi

# A bad baseline is an error before the program runs (exit 70), never a
# crash: missing, a directory, garbage, truncated, another schema, a
# document of a run without --profile, members of the wrong type.
if want "profile: diff errors"; then
	$UC --profile --baseline="$TMP/good.json" "$PBIN/diff_load" fast >/dev/null 2>&1
	head -c 500 "$TMP/good.json" >"$TMP/bad.trunc"
	head -c 4096 /dev/urandom >"$TMP/bad.random"
	printf '[1, 2' >"$TMP/bad.unfinished"
	sed 's/"schema":2/"schema":3/' "$TMP/good.json" >"$TMP/bad.schema"
	sed 's/"completed":2048/"completed":"many"/' "$TMP/good.json" >"$TMP/bad.type"
	sed 's/"opcode_number":22/"opcode_number":300/' "$TMP/good.json" >"$TMP/bad.opcode"
	$UC --json="$TMP/bad.check" true >/dev/null 2>&1
	$PY -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["profile"]["rings"][0]["opcodes"][0]["latency_ns"]["log2_histogram"] = [1] * 1000
json.dump(d, open(sys.argv[2], "w"))' "$TMP/good.json" "$TMP/bad.hist"
	ok=1
	for f in "$TMP/no-such-file" "$TMP" "$TMP/bad.trunc" "$TMP/bad.random" "$TMP/bad.unfinished" \
		 "$TMP/bad.schema" "$TMP/bad.type" "$TMP/bad.opcode" "$TMP/bad.check" "$TMP/bad.hist"; do
		rm -f "$TMP/ran"
		$UC --profile --diff="$f" sh -c "touch $TMP/ran" >"$TMP/de.out" 2>&1
		rc=$?
		if [ "$rc" != 70 ] || [ -e "$TMP/ran" ] ||
		   ! grep -q "^uringcheck: --diff=$f: " "$TMP/de.out"; then
			ok=0
			fail "profile: --diff=$(basename "$f")" "exit $rc (expected 70), or the program ran" "$TMP/de.out"
		fi
	done
	[ "$ok" = 1 ] && pass "profile: --diff: 10 bad baselines, each a clear error (70) before the program runs"
	# fuzz-ish: prefixes of a good baseline (each unfinished: 70), and
	# valid JSON with members swapped for other types and extremes (70,
	# or a diff when the member is one the reader does not use); never a
	# crash (a status of 128 and above) and never a silent 70
	size=$(stat -c %s "$TMP/good.json")
	ok=1 n=0
	for cut in 1 2 17 100 333 $((size / 3)) $((size / 2)) $((size - 40)) $((size - 2)); do
		head -c "$cut" "$TMP/good.json" >"$TMP/fz.json"
		$UC --profile --diff="$TMP/fz.json" true >"$TMP/fz.out" 2>&1
		rc=$?
		n=$((n + 1))
		if [ "$rc" != 70 ] || ! grep -q '^uringcheck: --diff=' "$TMP/fz.out"; then
			ok=0; fail "profile: --diff of a baseline cut at byte $cut" "exit $rc" "$TMP/fz.out"
		fi
	done
	for seed in 1 2 3 4 5 6 7 8 9 10 11 12; do
		$PY - "$TMP/good.json" "$TMP/fz.json" "$seed" <<'PY'
import json, random, sys
random.seed(int(sys.argv[3]))
d = json.load(open(sys.argv[1]))
spots = []
def walk(o):
    for k, v in (o.items() if isinstance(o, dict) else enumerate(o)):
        spots.append((o, k))
        if isinstance(v, (dict, list)):
            walk(v)
walk(d["profile"])
for _ in range(3):
    o, k = random.choice(spots)
    o[k] = random.choice([None, "x", -1, 2**64 - 1, 1e308, [], {}, True, [[-1] * 40]])
json.dump(d, open(sys.argv[2], "w"))
PY
		$UC --profile --diff="$TMP/fz.json" true >"$TMP/fz.out" 2>&1
		rc=$?
		n=$((n + 1))
		if { [ "$rc" != 70 ] && [ "$rc" != 0 ]; } ||
		   { [ "$rc" = 70 ] && ! grep -q '^uringcheck: --diff=' "$TMP/fz.out"; } ||
		   { [ "$rc" = 0 ] && ! grep -qE '^==[0-9]+==diff against' "$TMP/fz.out"; }; then
			cp "$TMP/fz.json" "$TMP/fz.$seed.json"
			ok=0; fail "profile: --diff of a mutated baseline (seed $seed)" "exit $rc" "$TMP/fz.out"
		fi
	done
	[ "$ok" = 1 ] && pass "profile: --diff: $n cut or mutated baselines, each refused with a reason or read, none a crash"
	pf_status "--fail-on=doctor:crit is a usage error" 2 $UC --profile --fail-on=doctor:crit true
	pf_status "--fail-on=doctor:warning needs --profile" 2 $UC --fail-on=doctor:warning true
	pf_status "--baseline needs --profile" 2 $UC --baseline=/dev/null true
	pf_status "-e with an unknown opcode is a usage error" 2 $UC --profile -e op=READ,NOPE true
	pf_status "-e with a bad expression is a usage error" 2 $UC --profile -e slow true
	pf_status "--baseline into a directory is a tool error" 70 $UC --profile --baseline=/ true
fi
