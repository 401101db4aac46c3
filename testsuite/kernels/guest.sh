#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test kernel (busybox sh): every line of cases.list,
# "NAME|EXPECT|STATUS|OPTIONS|ARGS|MATCH|REPEAT", under uringcheck (a
# plain case REPEAT times: it passes only when every run does). Prints one
# "RESULT PASS|FAIL|SKIP NAME: why" line per case, between markers the
# host reads from the serial console.
echo "==GUEST== kernel $(uname -r)"
[ -f "/boot/config-$(uname -r)" ] || echo "==GUEST== no /boot/config-$(uname -r): Debian's archive lacks it (fetch.sh)"
# reap-lag's threshold for every run here: 1 s, not 100 ms. Under TCG a
# guest runs tens of times slower than the host, and on a loaded host a
# CQE of a clean program sat past 100 ms now and then (a timing warning
# that says nothing of the kernel under test). The reap-lag cases set
# their own threshold on the command line, which wins.
export URINGCHECK_OPTIONS=--reap-lag-ms=1000
./uringcheck --version 2>&1 | sed 's/^/==VERSION== /'
# the kinds a report can name, from the binary's own table
KINDS=$(./uringcheck --list-kinds | cut -f1)
# Hundredths of a second since boot (busybox date has no %N).
now_cs() { read -r up _ </proc/uptime; echo "${up%.*}${up#*.}" | sed 's/^0*//; s/^$/0/'; }
cs_text() { printf '%d.%02d s' $(($1 / 100)) $(($1 % 100)); }
# The kernel log's watchdogs made sensitive (the boot line sets them too,
# for the kernels that read them only there): a CPU stuck 10 s is a soft
# lockup, a task blocked 60 s (under the runs' 120 s timeout) a hung task.
echo 5 >/proc/sys/kernel/watchdog_thresh 2>/dev/null
echo 60 >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
# (Said in words the host's stall patterns do not match.)
echo "==WATCHDOG== lockup threshold $(cat /proc/sys/kernel/watchdog_thresh 2>/dev/null || echo none) s x 2," \
	"hung-task timeout $(cat /proc/sys/kernel/hung_task_timeout_secs 2>/dev/null || echo none) s"
# Start-up: one cold run (nothing loaded yet, no warm instance) of a
# program that does nothing: loading and attaching everything, then the
# teardown. The host puts it in docs/kernels.md's table.
t0=$(now_cs)
./uringcheck --keep-warm=0 -- /bin/true >/dev/null 2>&1 </dev/null
rc=$?
echo "==STARTUP== $(cs_text $(($(now_cs) - t0))) (exit $rc)"
soak=
# /s: the static binary's root (initramfs.sh), for the static:NAME cases.
# Its shared libraries: none (checked here, said as a result of its own).
if [ -d /s ]; then
	for d in proc sys dev; do mount -o bind /$d /s/$d; done
	mount -t bpf bpf /s/sys/fs/bpf 2>/dev/null
	mount -t tmpfs tmpfs /s/tmp
	mount -t tmpfs tmpfs /s/run
	libs=$(find /s/t /s/boot -name '*.so*' | wc -l)
	ver=$(chroot /s /t/uringcheck --version 2>&1 | grep '^static build:')
	if [ "$libs" = 0 ] && [ ! -e /s/lib ] && [ ! -e /s/usr ] && [ -n "$ver" ]; then
		echo "RESULT PASS static root: no shared library, --version says static build"
	else
		echo "RESULT FAIL static root: $libs shared objects, or no 'static build:' line"
		chroot /s /t/uringcheck --version 2>&1 | head -5 | sed 's/^/  | /'
	fi
fi
while IFS='|' read -r name expect status opts args match repeat; do
	[ -n "$name" ] || continue
	if [ "$expect" = skip ]; then
		echo "RESULT SKIP $name: $status"
		continue
	fi
	# soak|CHECK,...|PROFILE,...|TRACE,...|||RUNS: after every case
	if [ "$name" = soak ]; then
		soak="$expect|$status|$opts|$repeat"
		continue
	fi
	case $name in trace:*)
		# the trace mode: workload.c's 9 requests reach the timeline
		prog=${name#trace:}
		timeout 120 ./uringcheck --keep-warm=0 --trace=/tmp/$prog.pftrace \
			--events=/tmp/$prog.csv -- ./$prog >/tmp/$prog.out 2>&1
		rc=$?
		ok=1
		[ "$rc" = "$status" ] || ok=0
		if [ "$expect" = requests ]; then
			grep -q 'uringcheck: trace: 9 requests' /tmp/$prog.out || ok=0
			[ -s /tmp/$prog.pftrace ] || ok=0
			[ "$(grep -c ',SUBMIT,' /tmp/$prog.csv)" = 9 ] || ok=0
		fi
		if [ -n "$match" ] && ! grep -qE -- "$match" /tmp/$prog.out; then ok=0; fi
		if [ $ok = 1 ]; then
			echo "RESULT PASS $name: [$expect] exit $rc"
		else
			echo "RESULT FAIL $name: expected [$expect] exit $status, got exit $rc"
			head -c 1500 /tmp/$prog.out | sed 's/^/  | /'
			echo
		fi
		continue
	esac
	case $name in profile:*)
		# the profile mode: paths.c's requests, each path counted exactly
		prog=${name#profile:}
		timeout 120 ./uringcheck --profile --profile-sample=1 --json=/tmp/$prog.json \
			-- ./$prog >/tmp/$prog.out 2>&1
		rc=$?
		ok=1
		[ "$rc" = "$status" ] || ok=0
		# counts: pipe reads are poll-armed; counts-pipe-punt: the kernel
		# punts them to io-wq (pipes without FMODE_NOWAIT, 6.1)
		case $expect in
		counts) pipe='"inline":0,"poll_armed":10,"punted":0' ;;
		counts-pipe-punt) pipe='"inline":0,"poll_armed":0,"punted":10' ;;
		*) pipe= ;;
		esac
		if [ -n "$pipe" ]; then
			# the document is indented: one line without blanks to match
			tr -d ' \n' </tmp/$prog.json >/tmp/$prog.flat
			for re in '"opcode":"NOP"[^]]*"paths":\{"inline":100,"poll_armed":0,"punted":10' \
				"\"opcode\":\"READ\"[^]]*\"paths\":\\{$pipe" \
				'"opcode":"FSYNC"[^]]*"paths":\{"inline":0,"poll_armed":0,"punted":10'; do
				grep -qE "$re" /tmp/$prog.flat 2>/dev/null || ok=0
			done
		fi
		if [ -n "$match" ] && ! grep -qE -- "$match" /tmp/$prog.out; then ok=0; fi
		if [ $ok = 1 ]; then
			echo "RESULT PASS $name: [$expect] exit $rc"
		else
			echo "RESULT FAIL $name: expected [$expect] exit $status, got exit $rc"
			head -c 1500 /tmp/$prog.out /tmp/$prog.json 2>/dev/null | sed 's/^/  | /'
			echo	# the JSON has no newline of its own: markers stay at a line start
		fi
		continue
	esac
	# pidns:NAME: NAME in a child PID namespace (busybox unshare), which
	# writes its pid as seen there before it runs: the report's.
	# mntns:NAME: the same, with a mount namespace of its own where NAME
	# runs from a tmpfs only that namespace has (as a container's file
	# system); testsuite/kernels/cases asks (match=) for main's frame.
	label=$name
	pidf=
	mnt=
	croot=
	case $name in static:*)
		# static:NAME: NAME's static build under the static binary, in
		# /s, where no shared library exists (the log is /s/tmp/NAME.log)
		name=${name#static:}
		label="$name with the static binary"	# no colon: the host splits there
		croot=/s
	esac
	case $name in pidns:*|mntns:*)
		[ "${name%%:*}" = mntns ] && mnt=1
		name=${name#*:}
		label="$name in a PID namespace"	# no colon: the host splits there
		[ -n "$mnt" ] && label="$name in a PID and mount namespace, from its tmpfs"
		pidf=/tmp/$name.nspid
		rm -f $pidf
	esac
	log=$croot/tmp/$name.log
	run=0
	bad=0
	retried=0
	while [ $run -lt "${repeat:-1}" ]; do
	run=$((run + 1))
	rm -f $log
	if [ -n "$croot" ]; then
		# shellcheck disable=SC2086
		timeout 120 chroot $croot /t/uringcheck --keep-warm=0 --log-file=/tmp/$name.log \
			$opts -- /t/$name $args >/tmp/$name.out 2>/tmp/$name.err
	elif [ -n "$mnt" ]; then
		mkdir -p /tmp/nsbin
		# shellcheck disable=SC2086,SC2016
		timeout 120 unshare --pid --fork --mount-proc --mount --propagation private \
			sh -c 'mount -t tmpfs tmpfs /tmp/nsbin && cp "./$1" /tmp/nsbin/ &&
				shift && exec "$@"' _ $name ./uringcheck --keep-warm=0 \
			--log-file=$log $opts -- sh -c 'echo $$ >"$0"; exec "$@"' $pidf \
			/tmp/nsbin/$name $args >/tmp/$name.out 2>/tmp/$name.err
	elif [ -n "$pidf" ]; then
		# shellcheck disable=SC2086,SC2016
		timeout 120 unshare --pid --fork --mount-proc ./uringcheck --keep-warm=0 \
			--log-file=$log $opts -- sh -c 'echo $$ >"$0"; exec "$@"' $pidf \
			./$name $args >/tmp/$name.out 2>/tmp/$name.err
	else
		# shellcheck disable=SC2086
		timeout 120 ./uringcheck --keep-warm=0 --log-file=$log $opts -- ./$name $args >/tmp/$name.out 2>/tmp/$name.err
	fi
	rc=$?
	got=""
	for k in $KINDS; do
		grep -qE "(ERROR|WARNING): uringcheck: $k:" $log 2>/dev/null && got="$got+$k"
	done
	got=${got#+}
	[ "$expect" = clean ] && want="" || want=$expect
	ok=1
	[ "$got" = "$want" ] || ok=0
	[ "$rc" = "$status" ] || ok=0
	if [ -n "$match" ] && ! cat $log /tmp/$name.err 2>/dev/null | grep -qE -- "$match"; then ok=0; fi
	if [ -n "$pidf" ] && [ -n "$want" ] && ! grep -q "^==$(cat $pidf 2>/dev/null)==" $log; then ok=0; fi
	# A run the kernel skipped hooks in (a preempted run of the same
	# program, PREEMPT_LAZY: docs/lost-events.md) said so in a note: its
	# verdict is not the checker's to stand by. Run again, three times at
	# most per case; a failure without that note is a failure.
	if [ $ok = 0 ] && [ $retried -lt 3 ] &&
	   grep -q 'uringcheck: note: the kernel skipped [0-9]* run' $log 2>/dev/null; then
		retried=$((retried + 1))
		run=$((run - 1))
		continue
	fi
	if [ $ok = 0 ]; then
		bad=$((bad + 1))
		# the first failing run's output is the one shown
		[ $bad = 1 ] && head -c 1500 $log /tmp/$name.err 2>/dev/null >/tmp/$name.first
		first="got [${got:-clean}] exit $rc"
	fi
	done
	# "N of M runs" last: run.sh counts the repeated cases by it
	times=
	[ $retried -gt 0 ] && times=", $retried run again after the kernel skipped hook runs"
	[ "${repeat:-1}" -gt 1 ] && times="$times, $((run - bad)) of $run runs"
	if [ $bad = 0 ]; then
		echo "RESULT PASS $label: [${got:-clean}] exit $rc${pidf:+, pid $(cat $pidf 2>/dev/null) as the namespace sees it}$times"
	else
		echo "RESULT FAIL $label: expected [${want:-clean}] exit $status, $first$times"
		sed 's/^/  | /' /tmp/$name.first
	fi
done <cases.list

# nth N WORD...: the Nth word (from 0, cyclically).
nth() {
	n=$1
	shift
	n=$((n % $#))
	shift $n
	echo "$1"
}

# The soak (issue #30: a soft lockup on 6.1, once in about 57 runs): RUNS
# runs alternating --check, --profile and --trace on small clean
# programs, each program in turn, with the default --keep-warm (a run
# may join the programs the last one left loaded, as a test suite's runs
# do). Every run must exit 0 within its timeout; the kernel log is
# judged below. A run that hangs in the kernel hangs the guest: the host
# sees the watchdog's lines on the console and stops it (run.sh).
if [ -n "$soak" ]; then
	IFS='|' read -r s_check s_profile s_trace runs <<EOF
$soak
EOF
	s_check=$(echo "$s_check" | tr ',' ' ')
	s_profile=$(echo "$s_profile" | tr ',' ' ')
	s_trace=$(echo "$s_trace" | tr ',' ' ')
	i=0 bad=0 longest=0 nc=0 np=0 nt=0 first=
	while [ $i -lt "$runs" ]; do
		t0=$(now_cs)
		case $((i % 3)) in
		0)	prog=$(nth $((i / 3)) $s_check) mode=check
			nc=$((nc + 1))
			timeout 120 ./uringcheck --log-file=/tmp/soak.log -- ./$prog \
				>/tmp/soak.out 2>&1 </dev/null ;;
		1)	prog=$(nth $((i / 3)) $s_profile) mode=profile
			np=$((np + 1))
			timeout 120 ./uringcheck --profile -- ./$prog >/tmp/soak.out 2>&1 </dev/null ;;
		*)	prog=$(nth $((i / 3)) $s_trace) mode=trace
			nt=$((nt + 1))
			timeout 120 ./uringcheck --trace=/tmp/soak.pftrace -- ./$prog \
				>/tmp/soak.out 2>&1 </dev/null ;;
		esac
		rc=$?
		took=$(($(now_cs) - t0))
		[ $took -gt $longest ] && longest=$took
		if [ $rc != 0 ]; then
			bad=$((bad + 1))
			if [ -z "$first" ]; then
				first="run $((i + 1)) --$mode $prog exit $rc"
				{ head -c 1500 /tmp/soak.out; cat /tmp/soak.log 2>/dev/null; } |
					head -c 2000 >/tmp/soak.first
			fi
		fi
		i=$((i + 1))
		# where a guest that hangs got to (the host keeps the console)
		[ $((i % 50)) = 0 ] && echo "==SOAK== $i runs, $bad not exit 0"
	done
	what="$i runs ($nc --check, $np --profile, $nt --trace), the longest $(cs_text $longest)"
	if [ $bad = 0 ]; then
		echo "RESULT PASS soak: $what, every one exit 0"
	else
		echo "RESULT FAIL soak: $bad of $what not exit 0, the first $first"
		sed 's/^/  | /' /tmp/soak.first
		echo
	fi
fi

# The kernel log over the whole session (cases and soak): a soft lockup,
# an RCU stall, a hung task, a BUG or a BPF warning fails the kernel,
# whatever the runs said. Other warnings are shown, not judged.
# (A hung task is "blocked for more than": the boot line names
# hung_task_timeout_secs, so that word is no sign.)
STALL_RE='soft lockup|self-detected stall|rcu: INFO|detected stalls? on CPU|blocked for more than|BUG:|WARNING:.*bpf'
dmesg >/tmp/dmesg.txt 2>&1
if grep -qE "$STALL_RE" /tmp/dmesg.txt; then
	echo "RESULT FAIL kernel log: $(grep -cE "$STALL_RE" /tmp/dmesg.txt) lines of a lockup, stall, hung task, BUG or BPF warning"
	grep -E -A12 "$STALL_RE" /tmp/dmesg.txt | head -60 | sed 's/^/  | /'
elif [ ! -s /tmp/dmesg.txt ]; then
	echo "RESULT FAIL kernel log: dmesg gave nothing to judge"
else
	echo "RESULT PASS kernel log: no soft lockup, RCU stall, hung task, BUG or BPF warning ($(wc -l </tmp/dmesg.txt) lines)"
fi
grep -E 'WARNING:' /tmp/dmesg.txt | grep -vE "$STALL_RE" | head -5 | sed 's/^/==KLOG== /'
echo "==GUEST== done"
