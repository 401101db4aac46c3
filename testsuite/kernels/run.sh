#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel matrix (make check-kernels [KERNELS="6.1 6.12 7.3"|all]): boots each
# of Debian's kernels under qemu (TCG: nested KVM hangs on the CI
# machines) from a small initramfs, runs testsuite/kernels/cases under
# uringcheck there (the soak last), judges each case against its
# expectation and the guest's kernel log for lockups and stalls. Ends
# with "N passed, N failed" over every kernel, after one table line per
# kernel (docs/kernels.md).
#   KERNELS=all      every line fetch.sh knows from 6.1 on
#   SOAK_RUNS=N      the soak's runs (cases' soak line: 200); 0: none
#   KERNEL_TIMEOUT=S a guest's whole time (900 s + 10 s per soak run)
#   GUEST_SMP=N      the guest's vCPUs (else expect.VERSION's smp line, else 1)
set -u
cd "$(dirname "$0")/../.."
KERNELS=${KERNELS:-6.1 6.12 7.3}
[ "$KERNELS" = all ] && KERNELS=$(testsuite/kernels/fetch.sh --all)
OUT=.output/kernels
SOAK_RUNS=${SOAK_RUNS:-$(grep -m1 -E '^soak( |$)' testsuite/kernels/cases | grep -oE 'runs=[0-9]+' | cut -d= -f2)}
SOAK_RUNS=${SOAK_RUNS:-0}
case $SOAK_RUNS in *[!0-9]*|'') echo "kernels/run.sh: SOAK_RUNS must be a number of runs, not '$SOAK_RUNS'" >&2
	echo "0 passed, 1 failed"; exit 1 ;; esac
case ${GUEST_SMP:-1} in [1-9]|[1-9][0-9]) ;; *) echo "kernels/run.sh: GUEST_SMP must be a number of vCPUs from 1 to 99, not '$GUEST_SMP'" >&2
	echo "0 passed, 1 failed"; exit 1 ;; esac
TMO=${KERNEL_TIMEOUT:-$((900 + 10 * SOAK_RUNS))}
# What a kernel stuck on uringcheck's behalf prints on the console (the
# guest judges its whole log at the end too; this is for a guest that
# never gets there): the host stops such a guest 30 s after the first
# line instead of waiting out the timeout.
# Only the kernel's lines: not guest.sh's own (RESULT, "  |" quotes of
# the kernel log, "==" markers), nor the boot line, which names
# hung_task_timeout_secs (a hung task is "blocked for more than").
STALL_RE='soft lockup|self-detected stall|rcu: INFO|detected stalls? on CPU|blocked for more than'
kernel_lines() { grep -avE '^(RESULT |  \||==)' "$1"; }
# The watchdogs made sensitive: a CPU stuck 10 s is a soft lockup
# (watchdog_thresh 5), an RCU stall is told after 15 s, a task blocked
# 60 s is hung (sysctl.*: 5.8 and later; guest.sh sets both again).
WATCHDOGS="watchdog_thresh=5 rcupdate.rcu_cpu_stall_timeout=15 sysctl.kernel.hung_task_timeout_secs=60"
TABLE=$OUT/table.md
: >"$TABLE"
passed=0
failed=0
pass() { passed=$((passed + 1)); printf 'PASS  %s\n' "$1"; }
fail() { failed=$((failed + 1)); printf 'FAIL  %s: %s\n' "$1" "$2"; }
# The kinds that fail a run by default, from the binary's own table. This
# runs on the host, but ./uringcheck is the very binary initramfs.sh puts
# in every guest (--list-kinds needs no BPF and no root), so the
# expectations are those of the program under test.
if ! FAIL_KINDS=$(./uringcheck --list-kinds | awk -F'\t' '$3 == "yes" { print $1 }' | paste -sd,) ||
   [ -z "$FAIL_KINDS" ]; then
	echo "kernels/run.sh: './uringcheck --list-kinds' failed: build uringcheck first (make all)" >&2
	echo "0 passed, 1 failed"
	exit 1
fi

testsuite/kernels/fetch.sh $KERNELS || { echo "0 passed, 1 failed"; exit 1; }

# Reads key=value (one word or "quoted words") from a header line.
hval() { echo "$1" | grep -oE "$2=(\"[^\"]*\"|[^ \"]*)" | head -1 | cut -d= -f2- | sed 's/^"//; s/"$//'; }

# cases.list for kernel $1: NAME|EXPECT|STATUS|OPTIONS|ARGS|MATCH|REPEAT
case_list() {
	local v=$1 line name base hdr over expect status opts args match k repeat
	grep -vE '^\s*(#|$)' testsuite/kernels/cases | while read -r line; do
		name=${line%% *}
		hdr=""
		# pidns:NAME, mntns:NAME: case NAME, in a child PID namespace,
		# with a mount namespace of its own; static:NAME: NAME's static
		# build under the static binary (guest.sh)
		base=${name#pidns:}
		base=${base#mntns:}
		base=${base#static:}
		[ -f "testsuite/cases/$base.c" ] && hdr=$(head -1 "testsuite/cases/$base.c")
		over=$(grep -E "^$name( |$)" "testsuite/kernels/expect.$v" 2>/dev/null | head -1)
		# static:NAME: what this kernel expects of NAME
		[ -n "$over" ] || [ "$base" = "$name" ] ||
			over=$(grep -E "^$base( |$)" "testsuite/kernels/expect.$v" 2>/dev/null | head -1 |
				sed "s/^[^ ]*/$name/")
		# "* key=value": for every program on that kernel
		[ -n "$over" ] || over=$(grep -E '^\* ' "testsuite/kernels/expect.$v" 2>/dev/null | head -1 | sed "s/^\* /$name /")
		if echo "$over" | grep -q ' skip'; then
			echo "$name|skip|${over#* skip }||||"
			continue
		fi
		# soak check=P,.. profile=P,.. trace=P,.. runs=N (guest.sh)
		if [ "$name" = soak ]; then
			if [ "$SOAK_RUNS" = 0 ]; then
				echo "soak|skip|SOAK_RUNS=0||||"
			else
				echo "soak|$(hval "$line" check)|$(hval "$line" profile)|$(hval "$line" trace)|||$SOAK_RUNS"
			fi
			continue
		fi
		all="$hdr ${line#"$name"} ${over#"$name"}"
		expect=$(echo "$all" | grep -oE 'expect=[^ ]*' | tail -1 | cut -d= -f2)
		status=$(echo "$all" | grep -oE 'status=[0-9]+' | tail -1 | cut -d= -f2)
		if [ -z "$status" ]; then
			status=0
			for k in ${expect//+/ }; do
				[[ ",$FAIL_KINDS," == *",$k,"* ]] && status=66
			done
		fi
		opts=$(hval "$hdr" options | tr ',' ' ')
		args=$(hval "${over#"$name"} ${line#"$name"}" args | tr ',' ' ')
		[ -n "$args" ] || args=$(hval "$hdr" args | tr ',' ' ')
		match=$(hval "${over#"$name"} ${line#"$name"}" match)
		[ -n "$match" ] || match=$(hval "$hdr" match)
		# repeat=N: run N times, every run judged (timing-dependent
		# verdicts show only in repetition)
		repeat=$(hval "${over#"$name"} ${line#"$name"}" repeat)
		echo "$name|$expect|$status|$opts|$args|$match|${repeat:-1}"
	done
}

for v in $KERNELS; do
	dir=$OUT/$v
	rel=$(cat "$dir/release")
	case_list "$v" >testsuite/kernels/cases.list
	# static:NAME stays: initramfs.sh puts NAME's static build apart
	# (and the soak's programs, not the word soak)
	names=$({ cut -d'|' -f1 testsuite/kernels/cases.list | grep -vx soak
		  grep '^soak|' testsuite/kernels/cases.list | grep -v '^soak|skip|' |
			cut -d'|' -f2-4 | tr ',|' '\n\n'; } |
		sed 's/^profile://; s/^trace://; s/^pidns://; s/^mntns://' | grep . | sort -u | tr '\n' ' ')
	testsuite/kernels/initramfs.sh "$dir/initrd.gz" "$dir/config-$rel" $names ||
		{ fail "kernel $v" "initramfs not built"; continue; }
	# The guest's vCPUs: 1, or the "smp N" line of expect.VERSION
	# (GUEST_SMP=N overrides both). One by default: with 2 vCPUs, qemu's
	# multi-threaded TCG ran stale int3s the kernel's text patching had
	# already removed, and guests died (7.3 in every soak, 6.12 in both
	# boots of a matrix run; empty programs toggled on tracepoints kill
	# 7.2 too: issue #30, docs/kernels.md).
	smp=${GUEST_SMP:-$(sed -n 's/^smp \([^ ]*\).*/\1/p' "testsuite/kernels/expect.$v" 2>/dev/null | head -1)}
	smp=${smp:-1}
	case $smp in [1-9]|[1-9][0-9]) ;; *)
		fail "kernel $v" "expect.$v's smp line must give a number of vCPUs from 1 to 99, not '$smp'"
		continue ;; esac
	# One boot; a second only if the guest kernel crashed (it is said,
	# never hidden). -cpu max without cx16: TCG's cmpxchg16b made 6.12's
	# allocator double-fault in about half the boots (found by a helper
	# bisecting CPU features; with cx16=off no crash in every boot since).
	for try in 1 2; do
		start=$(date +%s)
		timeout "$TMO" qemu-system-x86_64 -accel tcg -cpu max,cx16=off -m 2G -smp "$smp" -nographic \
			-no-reboot -kernel "$dir/vmlinuz" -initrd "$dir/initrd.gz" \
			-append "console=ttyS0 panic=-1 quiet $WATCHDOGS" </dev/null >"$dir/serial.log" 2>&1 &
		qemu=$!
		stuck=
		while kill -0 "$qemu" 2>/dev/null; do
			sleep 2
			if [ -z "$stuck" ] && kernel_lines "$dir/serial.log" | grep -qaE "$STALL_RE"; then
				stuck=$(date +%s)
				echo "  NOTE     kernel $v: the guest kernel reports a stall: $(kernel_lines "$dir/serial.log" | grep -aoE -m1 "($STALL_RE).*" | tr -d '\r')"
			fi
			# 30 s more for the stuck task's stack, then stopped
			[ -n "$stuck" ] && [ $(($(date +%s) - stuck)) -ge 30 ] && kill "$qemu" 2>/dev/null
		done
		wait "$qemu"
		took=$(( $(date +%s) - start ))
		tr -d '\r' <"$dir/serial.log" >"$dir/serial.txt"
		grep -q 'Kernel panic' "$dir/serial.txt" || break
		echo "  NOTE     kernel $v: the guest kernel crashed ($(grep -m1 -oE '(BUG|Oops): .*' "$dir/serial.txt")); kept in $dir/crash.$try.txt"
		cp "$dir/serial.txt" "$dir/crash.$try.txt"
	done
	if grep -q 'Kernel panic' "$dir/serial.txt"; then
		fail "kernel $v ($rel)" "the guest kernel crashed twice (see $dir/serial.txt)"
		continue
	fi
	if kernel_lines "$dir/serial.txt" | grep -qE "$STALL_RE"; then
		fail "kernel $v ($rel)" "the guest kernel reported a lockup or stall on its console (see $dir/serial.txt)"
		kernel_lines "$dir/serial.txt" | grep -E -A8 -m3 "$STALL_RE" | head -30 | sed 's/^/      | /'
		echo "| $v | $rel | stuck | | | no: $(kernel_lines "$dir/serial.txt" | grep -oE -m1 "($STALL_RE)") | |" >>"$TABLE"
		continue
	fi
	if ! grep -q '^==GUEST== done' "$dir/serial.txt"; then
		fail "kernel $v ($rel)" "the guest did not finish in ${TMO}s (see $dir/serial.txt)"
		echo "| $v | $rel | did not finish in ${TMO} s | | | | |" >>"$TABLE"
		continue
	fi
	tier=$(grep -m1 '^==VERSION== tier' "$dir/serial.txt" | sed 's/^==VERSION== //')
	echo "  KERNEL   $v: $rel, ${took}s under TCG, $smp vCPU(s); ${tier:-no tier line}"
	want_tier=$(grep -m1 '^tier ' "testsuite/kernels/expect.$v" 2>/dev/null | cut -d' ' -f2-)
	if [ -n "$want_tier" ]; then
		if [ "$tier" = "tier: $want_tier" ]; then pass "kernel $v: tier $want_tier"
		else fail "kernel $v: tier" "expected [$want_tier], got [${tier:-none}]"; fi
	fi
	kp=$passed kf=$failed
	while read -r _ res rest; do
		case $res in
		PASS) pass "kernel $v: $rest" ;;
		SKIP) printf 'SKIP  kernel %s: %s\n' "$v" "$rest" ;;
		FAIL) fail "kernel $v: ${rest%%:*}" "${rest#*: }"
		      awk -v n="${rest%%:*}" '$0 ~ "^RESULT FAIL " n ":" { p = 1; next } p && /^  \|/ { print "      " $0; next } { p = 0 }' "$dir/serial.txt" | head -30 ;;
		esac
	done < <(grep '^RESULT ' "$dir/serial.txt")
	# The table line (docs/kernels.md): tier, tests passed, the repeated
	# cases, the soak with the kernel log, the cold start-up.
	kp=$((passed - kp)) kf=$((failed - kf))
	reps=$(grep -cE '^RESULT (PASS|FAIL) .* of [0-9]+ runs$' "$dir/serial.txt")
	repf=$(grep -cE '^RESULT FAIL .* of [0-9]+ runs$' "$dir/serial.txt")
	if grep -q '^RESULT SKIP soak:' "$dir/serial.txt"; then soak="not run"
	elif grep -q '^RESULT PASS soak:' "$dir/serial.txt"; then
		soak="yes, $(grep -m1 '^RESULT PASS soak:' "$dir/serial.txt" | grep -oE '^RESULT PASS soak: [0-9]+ runs' | grep -oE '[0-9]+') runs"
	else soak="no"; fi
	grep -q '^RESULT PASS kernel log:' "$dir/serial.txt" || soak="$soak; kernel log: no"
	echo "| $v | $rel | ${tier#tier: } | $kp of $((kp + kf)) | $((reps - repf)) of $reps | $soak | $(grep -m1 '^==STARTUP==' "$dir/serial.txt" | sed 's/^==STARTUP== //; s/ (exit 0)//') |" >>"$TABLE"
done
echo
echo "| kernel | release | tier | tests passed | repeats clean | soak clean | start-up |"
echo "|---|---|---|---|---|---|---|"
cat "$TABLE"
rm -f testsuite/kernels/cases.list
echo
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
