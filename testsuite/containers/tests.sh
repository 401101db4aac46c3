# SPDX-License-Identifier: GPL-2.0
# Sourced by testsuite/run.sh: uringcheck in a child PID namespace, as in
# every container, and the start-up errors where it cannot work.
#
#   pidns        a hazard case and a clean case in the check mode, the
#                profile and the trace, under `unshare --pid --fork
#                --mount-proc` and under one whose mount namespace holds the
#                program where the host has none: the same verdicts, counts
#                and requests as on the host, the pids the namespace sees
#   pidns (mnt): stacks  the program on its namespace's own tmpfs: ten
#                runs, each must name its frames (file:line)
#   mountns -p   --check -p, the hazard after the attach, the program on a
#                tmpfs of its own mount namespace: uringcheck inside, and
#                from the host
#   mountns build-id  a stripped program of another mount namespace: its
#                debug file by the build-id of the file opened
#   mountns unopened  a program's file nothing can open any more: said
#                and counted, no guessed frames
#   mountns liburing  liburing on a tmpfs of the program's own mount
#                namespace: the SQPOLL probes attached to that file
#   pidns -p     attached to a running program of a namespace below
#   pidns /proc  /proc of another namespace: exit 70, said
#   README recipes  the docker/podman lines, the jq line, the GitHub
#                Actions and GitLab jobs, parsed (and the jq line run)
#   errors       no capabilities, CAP_PERFMON alone, /sys not mounted, no
#                /sys/kernel/btf/vmlinux, a user namespace, io_uring
#                refused by seccomp: exit 70, named; CAP_BPF and
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
	if want "containers: pidns (proc): profile" || want "containers: pidns (mnt): profile"; then
		$UC --profile --profile-sample=1 --json="$TMP/ns-host.json" -- "$PFB/paths" \
			>"$TMP/ns-host.out" 2>&1
	fi
	for v in proc mnt; do
		t="containers: pidns ($v):"
		what="unshare --pid --fork --mount-proc"
		[ "$v" = mnt ] && what="$what, the program in the namespace's own mount"

		if want "$t check finds a hazard"; then
			ns_run $v $UC --json="$TMP/ns.json" -- \
				"${PIDW[@]}" "$TMP/ns.pid" "$(ns_bin $v inj_read_read)" >"$TMP/ns.out" 2>&1
			rc=$?
			pid=$(cat "$TMP/ns.pid" 2>/dev/null)
			if [ "$rc" = 66 ] && [ -n "$pid" ] &&
			   grep -q "^==$pid==ERROR: uringcheck: overlap:" "$TMP/ns.out" &&
			   grep -q "SUMMARY: uringcheck: overlap .* in pid $pid\$" "$TMP/ns.out" &&
			   grep -q "in main .*inj_read_read.c:" "$TMP/ns.out" &&
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

	# The program on a tmpfs only its namespace has, gone by the time
	# its report is symbolized: its frames come from the path the BPF
	# side walked across the namespace's mounts (symbolize/proc_maps.h).
	# Ten runs: before, they lost the program's frames about 4 in 5.
	if want "containers: pidns (mnt): stacks"; then
		named=0
		for i in 1 2 3 4 5 6 7 8 9 10; do
			ns_run mnt $UC --keep-warm=0 -- "$(ns_bin mnt inj_read_read)" \
				>"$TMP/ns.out" 2>&1
			rc=$?
			[ "$rc" = 66 ] &&
			   [ "$(grep -c "in main testsuite/cases/inj_read_read.c:42\$" "$TMP/ns.out")" = 2 ] &&
			   grep -q "in submit_exact testsuite/cases/uc_test.h:" "$TMP/ns.out" &&
			   ! grep -q "no symbols from\|stacks printed with frames unnamed" "$TMP/ns.out" &&
			   named=$((named + 1))
		done
		if [ "$named" = 10 ]
		then pass "containers: pidns (mnt): stacks: the program's frames (file:line) named in 10 runs of 10, the program on a tmpfs of the namespace's own mount"
		else fail "containers: pidns (mnt): stacks" "named in $named runs of 10" "$TMP/ns.out"; fi
	fi

	# --check -p to a program that commits its hazard after the attach,
	# the program on a tmpfs of its own mount namespace: "in" is
	# uringcheck in the container (unshare --pid --mount-proc --mount),
	# "host" is uringcheck outside, the program in a mount namespace of
	# its own but the host's PID namespace (docker run --pid=host).
	# Three runs each; every one must name the program's frames. The
	# hazard comes 2.5 s after the program starts, the attach at 0.4 s:
	# a slow attach on a loaded machine must not come after it.
	if want "containers: mountns -p"; then
		cc -O2 -g -Wall -o "$TMP/late_overlap" testsuite/attach/late_overlap.c -luring
		cat >"$TMP/mnt-attach.sh" <<-EOF
		mount -t tmpfs tmpfs $TMP/nsbin && cp $TMP/late_overlap $TMP/nsbin/ || exit 1
		$TMP/nsbin/late_overlap 2500 &
		sleep 0.4
		echo \$! >$TMP/ns.pid
		timeout 20 $UC --keep-warm=0 --check -p \$! --json=$TMP/ns.json
		rc=\$?
		wait
		exit \$rc
		EOF
		for where in in host; do
			named=0
			for i in 1 2 3; do
				rm -f "$TMP/ns.pid" "$TMP/ns.json"
				if [ $where = in ]; then
					ns_run proc unshare --mount --propagation private \
						sh "$TMP/mnt-attach.sh" >"$TMP/ns.out" 2>&1
					rc=$?
				else
					unshare --mount --propagation private sh -c \
						'mount -t tmpfs tmpfs "$0/nsbin" && cp "$0/late_overlap" "$0/nsbin/" &&
						 exec "$0/nsbin/late_overlap" 2500' "$TMP" &
					p=$!
					sleep 0.4
					echo $p >"$TMP/ns.pid"
					timeout 20 $UC --keep-warm=0 --check -p $p --json="$TMP/ns.json" \
						>"$TMP/ns.out" 2>&1
					rc=$?
					wait $p
				fi
				pid=$(cat "$TMP/ns.pid" 2>/dev/null)
				[ "$rc" = 66 ] && [ -n "$pid" ] &&
				   grep -q "^==$pid==ERROR: uringcheck: overlap: READ and READ" "$TMP/ns.out" &&
				   [ "$(grep -c "in main testsuite/attach/late_overlap.c:" "$TMP/ns.out")" = 2 ] &&
				   ! grep -q "no symbols from" "$TMP/ns.out" &&
				   $NS_PY -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [f["kind"] for f in d["findings"]] == ["overlap"]' \
					"$TMP/ns.json" 2>>"$TMP/ns.out" &&
				   named=$((named + 1))
			done
			if [ "$named" = 3 ]
			then pass "containers: mountns -p ($where): --check -p finds the hazard committed after the attach, the program's frames named in 3 runs of 3"
			else fail "containers: mountns -p ($where)" "found and named in $named runs of 3 (last: exit $rc)" "$TMP/ns.out"; fi
		done
	fi

	# Where it cannot work, it says so: uringcheck outside the mount
	# namespace the program made for itself, stopped (SIGSTOP) from
	# before the program starts until after it exited, so its file is
	# gone from everywhere uringcheck can look: the stack ends at the
	# program's frame with the line that says why, and it is counted.
	if want "containers: mountns unopened"; then
		$UC --keep-warm=0 --json="$TMP/ns.json" -- sh -c 'sleep 1.5; exec unshare --mount \
			--propagation private sh -c '\''mount -t tmpfs tmpfs "$0/nsbin" &&
			cp "$1" "$0/nsbin/" && exec "$0/nsbin/inj_read_read"'\'' "$0" "$1"' \
			"$TMP" "$BIN/inj_read_read" >"$TMP/ns.out" 2>&1 &
		uc=$!
		# the target runs once its sh exists (exec'd: it was released)
		for i in $(seq 100); do pgrep -P $uc -x sh >/dev/null && break; sleep 0.05; done
		kill -STOP $uc
		sleep 2.5
		kill -CONT $uc
		wait $uc
		rc=$?
		if [ "$rc" = 66 ] &&
		   [ "$(grep -c "(no symbols from $TMP/nsbin/inj_read_read: its file could not be opened; the process had exited" "$TMP/ns.out")" = 2 ] &&
		   grep -q "WARNING: uringcheck: 2 stacks printed with frames unnamed" "$TMP/ns.out" &&
		   ! grep -q "unknown module" "$TMP/ns.out" &&
		   $NS_PY -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["summary"]["counters"]["stacks_file_unopened"] == 2' \
			"$TMP/ns.json" 2>>"$TMP/ns.out"
		then pass "containers: mountns unopened: the program's file unreachable once it exited: the stack ends there and says why, counted (stacks_file_unopened 2)"
		else fail "containers: mountns unopened" "exit $rc, or no note, warning or count" "$TMP/ns.out"; fi
	fi

	# liburing on a tmpfs of the program's own mount namespace, as a
	# container's /usr/lib: the SQPOLL probes attach to the file its maps
	# name through its root (/proc/PID/root), not to whatever that path
	# names in uringcheck's namespace (nothing here). Before, the attach
	# failed, the case waited 10 s for its probe and exited 1.
	if want "containers: mountns liburing"; then
		lib=$(ldd "$BIN/inj_sqpoll_stack" | awk '/liburing\.so/ { print $3 }')
		$UC --keep-warm=0 --log-file="$TMP/ns.sq.log" -- unshare --mount --propagation private \
			sh -c 'mount -t tmpfs tmpfs "$0/nsbin" && cp "$1" "$2" "$0/nsbin/" &&
				LD_LIBRARY_PATH="$0/nsbin" exec "$0/nsbin/inj_sqpoll_stack"' \
			"$TMP" "$BIN/inj_sqpoll_stack" "$lib" >"$TMP/ns.sq.out" 2>&1
		rc=$?
		if [ "$rc" = 66 ] && [ -n "$lib" ] &&
		   [ "$(grep -c ' in submit_reads testsuite/cases/inj_sqpoll_stack.c:[0-9]' "$TMP/ns.sq.log")" = 2 ] &&
		   ! grep -q "cannot probe liburing" "$TMP/ns.sq.log"
		then pass "containers: mountns liburing: liburing on the namespace's own tmpfs, probed through the process's root: SQPOLL submissions carry their stack"
		else cat "$TMP/ns.sq.out" >>"$TMP/ns.sq.log"; fail "containers: mountns liburing" "exit $rc, or no stack" "$TMP/ns.sq.log"; fi
	fi

	# The same for free-inflight's probes: glibc's libc.so.6 on a tmpfs of
	# the program's mount namespace (LD_LIBRARY_PATH), as a container's
	# own libc. It is probed at the process's first ring, through its root
	# (checker/mapped_files.h); the case frees its chunk once free is
	# probed. Before, the path its maps name was probed as uringcheck sees
	# it: the system's libc, probed already, so nothing was attached, the
	# case waited 10 s for its probe and no release was judged, without a
	# note.
	if want "containers: mountns libc"; then
		libc=$(ldd "$BIN/inj_free-inflight_probed_late" | awk '/libc\.so\.6/ { print $3 }')
		$UC --keep-warm=0 --log-file="$TMP/ns.libc.log" -- unshare --mount --propagation private \
			sh -c 'mount -t tmpfs tmpfs "$0/nsbin" && cp "$1" "$2" "$0/nsbin/" &&
				LD_LIBRARY_PATH="$0/nsbin" exec "$0/nsbin/inj_free-inflight_probed_late"' \
			"$TMP" "$BIN/inj_free-inflight_probed_late" "$libc" >"$TMP/ns.libc.out" 2>&1
		rc=$?
		if [ "$rc" = 66 ] && [ -n "$libc" ] &&
		   grep -q 'ERROR: uringcheck: free-inflight: free() of heap chunk' "$TMP/ns.libc.log" &&
		   grep -q 'not judged until its first ring was read (pid [0-9]* maps a libc.so.6 of its own, '"$TMP"'/nsbin/libc.so.6' "$TMP/ns.libc.log" &&
		   ! grep -q 'not probed within' "$TMP/ns.libc.out"
		then pass "containers: mountns libc: the namespace's own libc probed through the process's root: the free found, the gap before its first ring noted"
		else cat "$TMP/ns.libc.out" >>"$TMP/ns.libc.log"; fail "containers: mountns libc" "exit $rc, or no free-inflight" "$TMP/ns.libc.log"; fi
	fi

	# The same libc of the namespace's own, the program gone before its
	# first ring was read (it frees and exits at once): its libc could not
	# be probed then, and the kernel's mapping records sent with the ring
	# (v6.7+) show it mapped another file than the one probed before it
	# ran. Before, nothing was said: exit 0, silent (3 of 3 runs). If the
	# reader is quicker than the program's exit, the libc is probed late,
	# and the note says that instead: either names the namespace's libc.
	if want "containers: mountns libc, gone before its ring was read"; then
		libc=$(ldd "$BIN/inj_free-inflight_malloc" | awk '/libc\.so\.6/ { print $3 }')
		mkdir -p "$TMP/nsbin"
		$UC --keep-warm=0 --log-file="$TMP/ns.gone.log" -- unshare --mount --propagation private \
			sh -c 'mount -t tmpfs tmpfs "$0/nsbin" && cp "$1" "$0/nsbin/" &&
				LD_LIBRARY_PATH="$0/nsbin" exec "$2"' \
			"$TMP" "$libc" "$BIN/inj_free-inflight_malloc" >"$TMP/ns.gone.out" 2>&1
		rc=$?
		if [ -n "$libc" ] && [ "$rc" != 70 ] &&
		   grep -Eq "(gone before their own libc.so.6 could be probed \(pid [0-9]+ mapped|not judged until its first ring was read \(pid [0-9]+ maps a libc.so.6 of its own,) $TMP/nsbin/libc.so.6" "$TMP/ns.gone.log"
		then pass "containers: mountns libc, gone before its ring was read: its own libc named from the kernel's mapping records, its releases said unjudged"
		else cat "$TMP/ns.gone.out" >>"$TMP/ns.gone.log"; fail "containers: mountns libc, gone" "exit $rc, no note naming $TMP/nsbin/libc.so.6" "$TMP/ns.gone.log"; fi
	fi

	# long_path_run LIB LOG UC-OPTIONS...: testsuite/attach/late_overlap.c
	# (300 ms, clean) under uringcheck in a mount namespace of its own,
	# with LIB copied to a directory on a tmpfs there whose path, with
	# the library's name, is 4,090 bytes: it fits PATH_MAX, but not once
	# /proc/PID/root is put before it. Output in LOG's .out.
	lo_plain() {
		[ -x "$TMP/lo_plain" ] ||
			cc -O2 -Wall -o "$TMP/lo_plain" testsuite/attach/late_overlap.c -luring
	}
	long_path_run() {
		local lib=$1 log=$2
		shift 2
		lo_plain || return 1
		mkdir -p "$TMP/nsbin"
		$UC --keep-warm=0 "$@" --log-file="$log" -- unshare --mount --propagation private \
			sh -c 'mount -t tmpfs tmpfs "$0/nsbin" || exit 9
				d=$0/nsbin seg=$(printf "%0200d" 0)
				while [ $(( ${#d} + 212 )) -lt 4090 ]; do d=$d/$seg; done
				d=$d/$(printf "%0$(( 4078 - ${#d} ))d" 0)
				mkdir -p "$d" && cp "$1" "$d/" && LD_LIBRARY_PATH="$d" exec "$2" 300 clean' \
			"$TMP" "$lib" "$TMP/lo_plain" >"${log%.log}.out" 2>&1
	}

	# A libc of the namespace's own at a path that fits PATH_MAX but not
	# once /proc/PID/root is put before it: it cannot be opened from here,
	# and the note says so. Before, the note said the process maps no
	# glibc libc.so.6, a wrong cause.
	if want "containers: mountns libc at a path too long"; then
		libc=$(ldd "$BIN/inj_free-inflight_malloc" | awk '/libc\.so\.6/ { print $3 }')
		long_path_run "$libc" "$TMP/ns.long.log"
		rc=$?
		if [ "$rc" = 0 ] &&
		   grep -Eq 'whose probes could not be attached \(pid [0-9]+: the path of its libc.so.6 through /proc/[0-9]+/root is longer than PATH_MAX\)' "$TMP/ns.long.log" &&
		   ! grep -q 'mapping no glibc' "$TMP/ns.long.log"
		then pass "containers: mountns libc at a path too long to open through /proc/PID/root: said so, not \"no glibc\""
		else cat "$TMP/ns.long.out" >>"$TMP/ns.long.log"; fail "containers: mountns libc at a path too long" "exit $rc, or the note's cause" "$TMP/ns.long.log"; fi
	fi

	# The same for liburing under --liburing-uprobes: before, a liburing
	# that could not be opened was taken for none linked, and nothing was
	# said (its reaps timed by the sampler alone, silently).
	if want "containers: mountns liburing at a path too long"; then
		lo_plain && lib=$(ldd "$TMP/lo_plain" | awk '/liburing\.so/ { print $3 }')
		long_path_run "$lib" "$TMP/ns.ulong.log" --liburing-uprobes
		rc=$?
		if [ -n "$lib" ] && [ "$rc" = 0 ] &&
		   grep -Eq 'note: cannot probe liburing in pid [0-9]+ \(File name too long\)' "$TMP/ns.ulong.log"
		then pass "containers: mountns liburing at a path too long to open through /proc/PID/root: said so, not taken for none"
		else cat "$TMP/ns.ulong.out" >>"$TMP/ns.ulong.log"; fail "containers: mountns liburing at a path too long" "exit $rc, or no note" "$TMP/ns.ulong.log"; fi
	fi

	# A stripped program of its own mount namespace, --check -p from a
	# mount namespace of uringcheck's own whose /usr/lib/debug has the
	# program's debug file under its build-id; at the program's path
	# uringcheck sees another ELF (other build-id). The build-id must come
	# from the file the snapshot opened (map_files), so main is named;
	# the same run without the debug file names nothing.
	if want "containers: mountns build-id"; then
		cc -O2 -g -Wall -o "$TMP/lo_full" testsuite/attach/late_overlap.c -luring &&
		objcopy --only-keep-debug "$TMP/lo_full" "$TMP/lo.debug" &&
		objcopy --strip-all "$TMP/lo_full" "$TMP/lo_stripped"
		bid=$(readelf -n "$TMP/lo_stripped" | sed -n 's/.*Build ID: //p')
		mkdir -p "$TMP/dbg/.build-id/${bid:0:2}" "$TMP/nsbin"
		cp "$TMP/lo.debug" "$TMP/dbg/.build-id/${bid:0:2}/${bid:2}.debug"
		cp "$BIN/ok_write_write" "$TMP/nsbin/lo_stripped"	# the decoy
		for dbg in with without; do
			unshare --mount --propagation private sh -c \
				'mount -t tmpfs tmpfs "$0/nsbin" && cp "$0/lo_stripped" "$0/nsbin/" &&
				 exec "$0/nsbin/lo_stripped" 2500' "$TMP" &
			p=$!
			sleep 0.4
			src=$TMP/dbg
			[ $dbg = with ] || src=$TMP/nodbg
			mkdir -p "$TMP/nodbg"
			timeout 20 unshare --mount --propagation private sh -c \
				'mount --bind "$0" /usr/lib/debug && exec "$@"' "$src" \
				$UC --keep-warm=0 --check -p $p >"$TMP/ns.$dbg.out" 2>&1
			echo $? >"$TMP/ns.$dbg.rc"
			wait $p
		done
		rm -f "$TMP/nsbin/lo_stripped"
		if [ -n "$bid" ] && [ "$(cat "$TMP/ns.with.rc")" = 66 ] &&
		   [ "$(grep -c "in main testsuite/attach/late_overlap.c:" "$TMP/ns.with.out")" = 2 ] &&
		   [ "$(cat "$TMP/ns.without.rc")" = 66 ] &&
		   ! grep -q "in main " "$TMP/ns.without.out"
		then pass "containers: mountns build-id: a stripped program of another mount namespace, its debug file found by the build-id of the file opened (not the ELF at its path here); nothing named without it"
		else fail "containers: mountns build-id" "exit $(cat "$TMP/ns.with.rc"), or main not named with the debug file only" "$TMP/ns.with.out"; fi
	fi

	if want "containers: pidns -p"; then
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
		then pass "containers: pidns -p: attached to a program of a namespace below, its ring under pid $pid"
		else fail "containers: pidns -p" "exit $rc or wrong document" "$TMP/ns.out"; fi
	fi

	if want "containers: pidns below"; then
		# the check mode cannot follow a process into a namespace below
		# its own (bpf/pidns.bpf.h): said, never silent
		ns_run proc $UC -- unshare --pid --fork "$BIN/inj_read_read" >"$TMP/ns.out" 2>&1
		if grep -q "WARNING: uringcheck: 1 processes not followed: in a PID namespace below" "$TMP/ns.out"
		then pass "containers: pidns below: check mode: a child in a namespace below is not followed, and said"
		else fail "containers: pidns below" "no warning" "$TMP/ns.out"; fi
	fi

	if want "containers: pidns /proc"; then
		unshare --pid --fork $UC "$BIN/ok_write_write" >"$TMP/ns.out" 2>&1
		rc=$?
		if [ "$rc" = 70 ] && grep -q "/proc belongs to another PID namespace" "$TMP/ns.out"
		then pass "containers: pidns /proc: a /proc of another namespace is refused (exit 70), said"
		else fail "containers: pidns /proc" "exit $rc" "$TMP/ns.out"; fi
	fi
else
	pass "containers: pidns: skipped, unshare --pid cannot run here"
fi

# README's "Containers and CI" recipes, parsed where they stand: the
# GitHub Actions and GitLab jobs as YAML with the keys each service needs
# and the suite run under the wrapper; the docker/podman lines with
# bash -n; the jq line run on a profile of Docker's shape (default
# action ERRNO, allow lists), which must then allow the three io_uring
# calls and keep the rest. No container or runner is started.
if want "containers: README recipes"; then
	if $NS_PY - README.md "$TMP" >"$TMP/recipes.out" 2>&1 <<'PY'
import json, os, re, subprocess, sys, yaml
text = open(sys.argv[1]).read()
tmp = sys.argv[2]
sec = text.split("\n## Containers and CI\n", 1)[1].split("\n## ", 1)[0]
docs = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", sec, re.S)]
assert len(docs) == 2, len(docs)
gh, gl = docs
job = gh["jobs"]["uringcheck"]
assert job["runs-on"] and "--privileged" in job["container"]["options"], job
runs = [st["run"] for st in job["steps"] if "run" in st]
assert any("--wrapper='uringcheck --'" in r for r in runs), runs
assert all("uses" in st or "run" in st for st in job["steps"]), job["steps"]
glj = gl["uringcheck"]
assert glj["image"] and isinstance(glj["script"], list), glj
assert any("--wrapper='uringcheck --'" in r for r in glj["script"]), glj["script"]
# the indented shell block with the docker and podman lines
blocks = re.findall(r"\n\n((?:    .*\n)+)", sec)
sh = [b for b in blocks if "docker run" in b]
assert len(sh) == 1, len(sh)
sh = "".join(l[4:] + "\n" for l in sh[0].splitlines())
subprocess.run(["bash", "-n"], input=sh, text=True, check=True)
jq = re.search(r"^jq .*?>uring-seccomp\.json$", sh, re.S | re.M).group(0)
prof = {"defaultAction": "SCMP_ACT_ERRNO",
        "syscalls": [{"names": ["read", "write"], "action": "SCMP_ACT_ALLOW"}]}
json.dump(prof, open(os.path.join(tmp, "default.json"), "w"))
subprocess.run(["bash", "-c", jq], cwd=tmp, check=True)
out = json.load(open(os.path.join(tmp, "uring-seccomp.json")))
allowed = {n for r in out["syscalls"] if r["action"] == "SCMP_ACT_ALLOW" for n in r["names"]}
assert {"read", "write", "io_uring_setup", "io_uring_enter", "io_uring_register"} <= allowed, allowed
assert out["defaultAction"] == "SCMP_ACT_ERRNO"
PY
	then pass "containers: README recipes: the GitHub Actions and GitLab jobs parse (YAML) and run the suite under the wrapper; the docker/podman lines parse (bash -n); the jq line allows the three io_uring calls"
	else fail "containers: README recipes" "see the output" "$TMP/recipes.out"; fi
fi

# errors NAME STATUS PATTERN CMD...: exit STATUS and PATTERN on stderr.
errors_case() {
	local n=$1 st=$2 pat=$3 rc
	shift 3
	want "containers: errors: $n" || return 0
	"$@" >"$TMP/err.out" 2>&1
	rc=$?
	if [ "$rc" = "$st" ] && grep -qE -- "$pat" "$TMP/err.out"
	then pass "containers: errors: $n (exit $st)"
	else fail "containers: errors: $n" "exit $rc, expected $st and /$pat/" "$TMP/err.out"; fi
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
# /sys and the kernel's BTF, hidden in a mount namespace of the test's own
# (--no-share: a warm instance of another run would need no BTF)
errors_case "/sys not mounted: said" 70 \
	"/sys is not mounted here, so /sys/kernel/btf/vmlinux is absent" \
	unshare --mount --propagation private sh -c 'umount -l /sys && exec "$@"' _ \
	$UC --no-share "$BIN/ok_write_write"
errors_case "no /sys/kernel/btf/vmlinux: named" 70 \
	"has no BTF \(/sys/kernel/btf/vmlinux\)" \
	unshare --mount --propagation private sh -c \
	'mount -t tmpfs tmpfs /sys/kernel/btf && exec "$@"' _ \
	$UC --no-share "$BIN/ok_write_write"
errors_case "a user namespace (rootless container)" 70 "from a user namespace" \
	unshare --user --map-root-user $UC "$BIN/ok_write_write"
errors_case "io_uring refused by seccomp (Docker's default)" 70 \
	"refused here .* by a seccomp filter" \
	"$CBIN/deny_io_uring" $UC "$BIN/ok_write_write"
