# SPDX-License-Identifier: GPL-2.0
# Sourced by testsuite/run.sh: uringcheck in a child PID namespace, as in
# every container, and the start-up errors where it cannot work.
#
#   pidns        a hazard case and a clean case in the check mode, the
#                profile and the trace, under `unshare --pid --fork
#                --mount-proc` and under one whose mount namespace holds the
#                program where the host has none: the same verdicts, counts
#                and requests as on the host, the pids the namespace sees
#   pidns -p     attached to a running program of a namespace below
#   pidns /proc  /proc of another namespace: exit 70, said
#   errors       no capabilities, CAP_PERFMON alone, a user namespace,
#                io_uring refused by seccomp: exit 70, named; CAP_BPF and
#                CAP_PERFMON alone are enough
CBIN=.output/containers
PFB=.output/profile-tests
TRB=.output/trace-tests
NS_PY=${PY:-python3}

# ns_run VARIANT CMD...: CMD in a new PID namespace; VARIANT "proc" is
# unshare --pid --fork --mount-proc; "mnt" also puts a tmpfs on
# $TMP/nsbin, where the namespace alone sees the copies of the programs
# that ns_bin names.
ns_run() {
	local v=$1
	shift
	if [ "$v" = proc ]; then
		unshare --pid --fork --mount-proc "$@"
	else
		unshare --pid --fork --mount-proc --mount --propagation private \
			sh -c 'mount -t tmpfs tmpfs "$0/nsbin" &&
				cp .output/tests/inj_read_read .output/tests/ok_write_write \
				   .output/profile-tests/paths .output/trace-tests/workload "$0/nsbin/" &&
				exec "$@"' "$TMP" "$@"
	fi
}
# The program NAME as the namespace of VARIANT runs it.
ns_bin() {
	if [ "$1" = proc ]; then
		case $2 in
		paths) echo "$PFB/paths" ;;
		workload) echo "$TRB/workload" ;;
		*) echo "$BIN/$2" ;;
		esac
	else
		echo "$TMP/nsbin/$2"
	fi
}
# PIDW FILE PROGRAM...: PROGRAM, its pid as its namespace sees it written
# to FILE first (the same process: sh execs it).
PIDW=(sh -c 'echo $$ >"$0"; exec "$@"')

if command -v unshare >/dev/null && unshare --pid --fork --mount-proc true 2>/dev/null; then
	mkdir -p "$TMP/nsbin"
	# The host's profile of paths.c: the counts a namespace must match.
	if want "pidns:"; then
		$UC --profile --profile-sample=1 --json="$TMP/ns-host.json" -- "$PFB/paths" \
			>"$TMP/ns-host.out" 2>&1
	fi
	for v in proc mnt; do
		t="pidns ($v):"
		what="unshare --pid --fork --mount-proc"
		[ "$v" = mnt ] && what="$what, the program in the namespace's own mount"

		# (mnt: the stack is not judged; with the program on a tmpfs of
		# the namespace's own mount, its frames are sometimes unnamed,
		# an open question, never on the host's file system)
		if want "$t check finds a hazard"; then
			ns_run $v $UC --json="$TMP/ns.json" -- \
				"${PIDW[@]}" "$TMP/ns.pid" "$(ns_bin $v inj_read_read)" >"$TMP/ns.out" 2>&1
			rc=$?
			pid=$(cat "$TMP/ns.pid" 2>/dev/null)
			if [ "$rc" = 66 ] && [ -n "$pid" ] &&
			   grep -q "^==$pid==ERROR: uringcheck: overlap:" "$TMP/ns.out" &&
			   grep -q "SUMMARY: uringcheck: overlap .* in pid $pid\$" "$TMP/ns.out" &&
			   { [ "$v" = mnt ] || grep -q "in main .*inj_read_read.c:" "$TMP/ns.out"; } &&
			   ! grep -qE "^==[0-9]+==(ERROR|WARNING): uringcheck: [a-z-]+:.*" \
				<(grep -v "overlap:" "$TMP/ns.out") &&
			   $NS_PY - "$TMP/ns.json" "$pid" <<'PY' 2>>"$TMP/ns.out"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["target"]["pid"] == int(sys.argv[2]), d["target"]
assert d["summary"]["findings"]["overlap"] >= 1
for f in d["findings"]:
    assert f["kind"] == "overlap", f["kind"]
PY
			then pass "$t check finds a hazard ($what): overlap, exit 66, pid $pid as the namespace sees it"
			else fail "$t check finds a hazard" "exit $rc, pid '$pid'" "$TMP/ns.out"; fi
		fi

		if want "$t check, clean"; then
			ns_run $v $UC -- "$(ns_bin $v ok_write_write)" >"$TMP/ns.out" 2>&1
			rc=$?
			if [ "$rc" = 0 ] && ! grep -q "uringcheck" "$TMP/ns.out"
			then pass "$t check, clean case: silent, exit 0"
			else fail "$t check, clean case" "exit $rc or output" "$TMP/ns.out"; fi
		fi

		if want "$t profile"; then
			ns_run $v $UC --profile --profile-sample=1 --json="$TMP/ns.json" -- \
				"${PIDW[@]}" "$TMP/ns.pid" "$(ns_bin $v paths)" >"$TMP/ns.out" 2>&1
			rc=$?
			pid=$(cat "$TMP/ns.pid" 2>/dev/null)
			if [ "$rc" = 0 ] && grep -q "^==$pid==process $pid (paths): 1 ring" "$TMP/ns.out" &&
			   $NS_PY - "$TMP/ns-host.json" "$TMP/ns.json" "$pid" <<'PY' 2>>"$TMP/ns.out"
import json, sys
def counts(path):
    d = json.load(open(path))
    rings = [[(o["opcode"], o["submitted"], o["completed"], o["errors"], o["bytes"],
               o["paths"]) for o in r["opcodes"]] for r in d["profile"]["rings"]]
    procs = [p["io_uring_setup_calls"] for p in d["profile"]["processes"]]
    return d, rings, procs
h, hr, hp = counts(sys.argv[1])
n, nr, np = counts(sys.argv[2])
assert hr == nr and hp == np, (hr, nr, hp, np)
pid = int(sys.argv[3])
assert n["target"]["pid"] == pid
assert all(r["pid"] == pid for r in n["profile"]["rings"])
assert all(p["pid"] == pid for p in n["profile"]["processes"])
PY
			then pass "$t profile: the host's counts, pid $pid"
			else fail "$t profile" "exit $rc or other counts" "$TMP/ns.out"; fi
		fi

		if want "$t trace"; then
			ns_run $v $UC --trace="$TMP/ns.pftrace" --events="$TMP/ns.csv" -- \
				"${PIDW[@]}" "$TMP/ns.pid" "$(ns_bin $v workload)" >"$TMP/ns.out" 2>&1
			rc=$?
			pid=$(cat "$TMP/ns.pid" 2>/dev/null)
			# every row is the program's: its pid (column 4) as seen here
			others=$(tail -n +2 "$TMP/ns.csv" 2>/dev/null | cut -d, -f4 | grep -vxc "$pid")
			if [ "$rc" = 0 ] && grep -q "uringcheck: trace: 9 requests" "$TMP/ns.out" &&
			   [ "$(grep -c ',SUBMIT,' "$TMP/ns.csv")" = 9 ] && [ "$others" = 0 ]
			then pass "$t trace: 9 requests, every event of pid $pid"
			else fail "$t trace" "exit $rc, $others rows of other pids" "$TMP/ns.out"; fi
			rm -f "$TMP/ns.pftrace" "$TMP/ns.csv"
		fi
	done

	if want "pidns -p"; then
		# a program of a namespace below uringcheck's, attached by its pid
		# here: the child's view is pid 1, ours another
		cat >"$TMP/ns-attach.sh" <<-EOF
		unshare --pid --fork $PFB/nop_loop 3 &
		sleep 0.5
		pid=\$(pgrep -n -x nop_loop)
		echo "\$pid" >$TMP/ns.pid
		$UC -p "\$pid" -d 1 --json=$TMP/ns.json
		wait
		EOF
		ns_run proc sh "$TMP/ns-attach.sh" >"$TMP/ns.out" 2>&1
		rc=$?
		pid=$(cat "$TMP/ns.pid" 2>/dev/null)
		if [ "$rc" = 0 ] && [ -n "$pid" ] && $NS_PY - "$TMP/ns.json" "$pid" <<'PY' 2>>"$TMP/ns.out"
import json, sys
d = json.load(open(sys.argv[1]))
pid = int(sys.argv[2])
assert d["target"] == {"pid": pid, "attached": True}, d["target"]
ring, = d["profile"]["rings"]
assert ring["pid"] == pid and ring["opcodes"][0]["completed"] > 1000, ring
PY
		then pass "pidns -p: attached to a program of a namespace below, its ring under pid $pid"
		else fail "pidns -p" "exit $rc or wrong document" "$TMP/ns.out"; fi
	fi

	if want "pidns below"; then
		# the check mode cannot follow a process into a namespace below
		# its own (bpf/pidns.bpf.h): said, never silent
		ns_run proc $UC -- unshare --pid --fork "$BIN/inj_read_read" >"$TMP/ns.out" 2>&1
		if grep -q "WARNING: uringcheck: 1 processes not followed: in a PID namespace below" "$TMP/ns.out"
		then pass "pidns below: check mode: a child in a namespace below is not followed, and said"
		else fail "pidns below" "no warning" "$TMP/ns.out"; fi
	fi

	if want "pidns /proc"; then
		unshare --pid --fork $UC "$BIN/ok_write_write" >"$TMP/ns.out" 2>&1
		rc=$?
		if [ "$rc" = 70 ] && grep -q "/proc belongs to another PID namespace" "$TMP/ns.out"
		then pass "pidns /proc: a /proc of another namespace is refused (exit 70), said"
		else fail "pidns /proc" "exit $rc" "$TMP/ns.out"; fi
	fi
else
	pass "pidns: skipped, unshare --pid cannot run here"
fi

# errors NAME STATUS PATTERN CMD...: exit STATUS and PATTERN on stderr.
errors_case() {
	local n=$1 st=$2 pat=$3 rc
	shift 3
	want "errors: $n" || return 0
	"$@" >"$TMP/err.out" 2>&1
	rc=$?
	if [ "$rc" = "$st" ] && grep -qE -- "$pat" "$TMP/err.out"
	then pass "errors: $n (exit $st)"
	else fail "errors: $n" "exit $rc, expected $st and /$pat/" "$TMP/err.out"; fi
}
if command -v setpriv >/dev/null; then
	errors_case "no capabilities: named, and how to grant them" 70 \
		"lacks CAP_BPF and CAP_PERFMON \(or CAP_SYS_ADMIN\)" \
		setpriv --bounding-set=-all $UC "$BIN/ok_write_write"
	errors_case "CAP_PERFMON alone: CAP_BPF named" 70 "lacks CAP_BPF \(or" \
		setpriv --bounding-set=-all,+perfmon $UC "$BIN/ok_write_write"
	errors_case "CAP_BPF and CAP_PERFMON alone suffice" 66 \
		"ERROR: uringcheck: overlap" \
		setpriv --bounding-set=-all,+bpf,+perfmon $UC "$BIN/inj_read_read"
fi
errors_case "a user namespace (rootless container)" 70 "from a user namespace" \
	unshare --user --map-root-user $UC "$BIN/ok_write_write"
errors_case "io_uring refused by seccomp (Docker's default)" 70 \
	"refused here .* by a seccomp filter" \
	"$CBIN/deny_io_uring" $UC "$BIN/ok_write_write"
