#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test kernel (busybox sh): every line of cases.list,
# "NAME|EXPECT|STATUS|OPTIONS|ARGS|MATCH|REPEAT", under uringcheck (a
# plain case REPEAT times: it passes only when every run does). Prints one
# "RESULT PASS|FAIL|SKIP NAME: why" line per case, between markers the
# host reads from the serial console.
echo "==GUEST== kernel $(uname -r)"
# reap-lag's threshold for every run here: 1 s, not 100 ms. Under TCG a
# guest runs tens of times slower than the host, and on a loaded host a
# CQE of a clean program sat past 100 ms now and then (a timing warning
# that says nothing of the kernel under test). The reap-lag cases set
# their own threshold on the command line, which wins.
export URINGCHECK_OPTIONS=--reap-lag-ms=1000
./uringcheck --version 2>&1 | sed 's/^/==VERSION== /'
# the kinds a report can name, from the binary's own table
KINDS=$(./uringcheck --list-kinds | cut -f1)
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
	if [ $ok = 0 ]; then
		bad=$((bad + 1))
		# the first failing run's output is the one shown
		[ $bad = 1 ] && head -c 1500 $log /tmp/$name.err 2>/dev/null >/tmp/$name.first
		first="got [${got:-clean}] exit $rc"
	fi
	done
	times=
	[ "${repeat:-1}" -gt 1 ] && times=", $((run - bad)) of $run runs"
	if [ $bad = 0 ]; then
		echo "RESULT PASS $label: [${got:-clean}] exit $rc${pidf:+, pid $(cat $pidf 2>/dev/null) as the namespace sees it}$times"
	else
		echo "RESULT FAIL $label: expected [${want:-clean}] exit $status, $first$times"
		sed 's/^/  | /' /tmp/$name.first
	fi
done <cases.list
echo "==GUEST== done"
