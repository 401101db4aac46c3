# SPDX-License-Identifier: GPL-2.0
#
# SECURITY (README, uringcheck(1)): what a user allowed only `sudo
# uringcheck` can do with it, how outputs are created, that nothing
# hangs and that no output is lost without a word.
#
#   security: sudo     a real sudoers rule for a throwaway user: the target
#                      runs as the user; --as-root, a root-owned
#                      --log-file, a root-only --suppressions file, -p of
#                      root's process, -a are refused (nothing echoed);
#                      -p -f skips a descendant that is not the user's;
#                      /etc/uringcheck.conf's allow-as-root, and a
#                      writable one ignored
#   security: outputs  another user's symlink in a sticky directory is
#                      not followed; %p files are new ones; /dev/stdout
#                      and /dev/fd/N are the descriptors given; directories,
#                      FIFOs without a reader and over-long paths are
#                      errors before the target runs (exit 70)
#   security: write    /dev/full and a full tmpfs: exit 70, the file named,
#                      a partial file removed
#   security: json     a program name and argument that are not UTF-8
#   security: supp     directories, /dev/zero, FIFOs, 17 MiB, invalid globs
#   security: signals  SIGTERM while the BPF programs load, and while an
#                      output nobody reads blocks
#
# Sourced by testsuite/run.sh (pass, fail, want, ours, kill_ours, $UC,
# $BIN, $TMP). Signals only what it starts.

SEC=$TMP/sec
mkdir -p "$SEC"
chmod 711 "$TMP"
chmod 755 "$SEC"
UCABS=$(realpath "$UC")
BINABS=$(realpath "$BIN")

# sec_status NAME EXPECTED CMD...: the status; stderr kept in $SEC/err.
sec_status() {
	local n=$1 exp=$2 rc
	shift 2
	want "security: $n" || return 0
	"$@" >"$SEC/out" 2>"$SEC/err"
	rc=$?
	if [ "$rc" = "$exp" ]; then pass "security: $n (exit $rc)"; else fail "security: $n" "exit $rc, expected $exp" "$SEC/err"; fi
}
# sec_msg NAME ERE: the last sec_status's stderr has a line matching ERE.
sec_msg() {
	want "security: $1" || return 0
	if grep -qE "$2" "$SEC/err"; then pass "security: $1"; else fail "security: $1" "no line /$2/" "$SEC/err"; fi
}

# --- sudo: a real sudoers rule ------------------------------------------------
if want "security: sudo"; then
	u=ucsec$$
	sudoers=/etc/sudoers.d/uringcheck-test-$$
	skip=""
	if ! command -v sudo >/dev/null || ! command -v runuser >/dev/null; then
		skip="sudo or runuser not installed (make deps installs sudo)"
	elif ! useradd -M -d /nonexistent -s /bin/sh "$u" 2>"$SEC/useradd.err"; then
		skip="cannot create a test user: $(head -1 "$SEC/useradd.err")"
	fi
	if [ -z "$skip" ]; then
		printf '%s ALL=(root) NOPASSWD: %s\n' "$u" "$UCABS" >"$sudoers.tmp"
		chmod 0440 "$sudoers.tmp"
		if visudo -cqf "$sudoers.tmp" 2>/dev/null; then
			mv "$sudoers.tmp" "$sudoers"
		else
			rm -f "$sudoers.tmp"
			skip="visudo rejects the rule"
		fi
	fi
	asuser() { (cd / && runuser -u "$u" -- sudo -n "$UCABS" --keep-warm=0 "$@"); }
	if [ -z "$skip" ]; then
		uid=$(id -u "$u")
		asuser -- /bin/sh -c id >"$SEC/id.out" 2>&1
		if ! grep -q "^uid=$uid(" "$SEC/id.out"; then
			skip="sudo does not run uringcheck for $u: $(head -1 "$SEC/id.out")"
		fi
	fi
	if [ -n "$skip" ]; then
		pass "security: sudo (skipped: $skip)"
	else
		pass "security: sudo: a user allowed only 'sudo uringcheck' runs the target as itself (uid $uid)"

		asuser --as-root -- /bin/sh -c id >"$SEC/ar.out" 2>&1
		rc=$?
		if [ "$rc" = 2 ] && ! grep -q '^uid=0' "$SEC/ar.out" && grep -q 'as-root: refused' "$SEC/ar.out"; then
			pass "security: sudo: --as-root refused (exit 2), no root shell"
		else
			fail "security: sudo: --as-root" "exit $rc" "$SEC/ar.out"
		fi

		# a root-owned file the user cannot write: not truncated, not written
		victim=/etc/uringcheck-test-$$
		echo "ROOTDATA" >"$victim"
		chmod 644 "$victim"
		asuser --log-file="$victim" -- "$BINABS/inj_read_read" >"$SEC/lf.out" 2>&1
		rc=$?
		if [ "$rc" = 70 ] && [ "$(cat "$victim")" = ROOTDATA ] &&
		   grep -q -- "--log-file=$victim: Permission denied" "$SEC/lf.out"; then
			pass "security: sudo: --log-file=/etc/... refused (exit 70), the file untouched"
		else
			fail "security: sudo: --log-file=/etc/..." "exit $rc, file: $(head -c 40 "$victim")" "$SEC/lf.out"
		fi
		rm -f "$victim"
		asuser --json="/etc/uringcheck-test-new-$$" -- /bin/true >"$SEC/nj.out" 2>&1
		rc=$?
		if [ "$rc" = 70 ] && [ ! -e "/etc/uringcheck-test-new-$$" ]; then
			pass "security: sudo: --json cannot create a file in /etc (exit 70)"
		else
			fail "security: sudo: --json in /etc" "exit $rc" "$SEC/nj.out"
			rm -f "/etc/uringcheck-test-new-$$"
		fi

		# a root-only suppressions file: refused, its content never shown
		printf 'SECRET-%s-LINE\n' "$$" >"$SEC/root.supp"
		chmod 600 "$SEC/root.supp"
		asuser --suppressions="$SEC/root.supp" -- /bin/true >"$SEC/rs.out" 2>&1
		rc=$?
		if [ "$rc" = 2 ] && ! grep -q SECRET "$SEC/rs.out" && grep -q 'Permission denied' "$SEC/rs.out"; then
			pass "security: sudo: a root-only --suppressions file is refused, its content not echoed"
		else
			fail "security: sudo: root-only --suppressions" "exit $rc" "$SEC/rs.out"
		fi

		# outputs the user may write are created as the user
		mkdir "$SEC/home"
		chown "$u" "$SEC/home"
		asuser --log-file="$SEC/home/log" --json="$SEC/home/j.%p" -- "$BINABS/inj_read_read" >"$SEC/own.out" 2>&1
		rc=$?
		owners=$(stat -c %U "$SEC/home/log" "$SEC/home"/j.* 2>/dev/null | sort -u)
		if [ "$rc" = 66 ] && [ "$owners" = "$u" ]; then
			pass "security: sudo: outputs are created by the invoking user"
		else
			fail "security: sudo: outputs' owner" "exit $rc, owners '$owners'" "$SEC/own.out"
		fi

		# -p of a process that is not the user's, and -a
		asuser -p $$ -d 1 >"$SEC/p.out" 2>&1
		rc=$?
		asuser -a -d 1 >"$SEC/a.out" 2>&1
		rca=$?
		if [ "$rc" = 2 ] && [ "$rca" = 2 ] && grep -q refused "$SEC/p.out" && grep -q refused "$SEC/a.out"; then
			pass "security: sudo: -p of root's process and -a refused"
		else
			fail "security: sudo: -p/-a" "exit $rc and $rca" "$SEC/p.out"
		fi

		# -p -f of the user's own process: a descendant that is not the
		# user's (su, set-uid root, waiting for a password on a pipe) is
		# skipped, and said so; the user's own one is followed
		runuser -u "$u" -- sh -c 'sleep 30 | su root -c true' >/dev/null 2>&1 &
		rpid=$!
		sleep 0.5
		shpid=$(pgrep -u "$u" -x sh -P "$rpid" 2>/dev/null || echo "$rpid")
		asuser -p "$shpid" -f -d 1 >"$SEC/pf.out" 2>&1
		rc=$?
		sl=$(pgrep -u "$u" -x sleep -P "$shpid" 2>/dev/null)
		[ -n "$sl" ] && kill "$sl"	# su reads EOF and exits; so does sh
		wait "$rpid" 2>/dev/null
		if [ "$rc" = 0 ] && grep -q "following pid $shpid and 1 process below it (-f)" "$SEC/pf.out" &&
		   grep -q -- "-f: 1 process below pid $shpid not followed: under sudo only the invoking user's" \
			"$SEC/pf.out"; then
			pass "security: sudo: -p -f skips (and counts) a descendant that is not the user's (set-uid su)"
		else
			fail "security: sudo: -p -f" "exit $rc, or the root-owned child not skipped" "$SEC/pf.out"
		fi

		# the administrator's leave: only from a file root alone can write
		if [ -e /etc/uringcheck.conf ]; then
			pass "security: sudo: allow-as-root (skipped: /etc/uringcheck.conf exists)"
		else
			printf '# test\nallow-as-root\n' >/etc/uringcheck.conf
			chmod 644 /etc/uringcheck.conf
			asuser --as-root -- /bin/sh -c id >"$SEC/ok.out" 2>&1
			chmod 664 /etc/uringcheck.conf
			asuser --as-root -- /bin/sh -c id >"$SEC/gw.out" 2>&1
			rcgw=$?
			rm -f /etc/uringcheck.conf
			if grep -q '^uid=0(' "$SEC/ok.out" && [ "$rcgw" = 2 ] &&
			   grep -q 'ignored: not a regular file owned by root' "$SEC/gw.out"; then
				pass "security: sudo: allow-as-root in /etc/uringcheck.conf; a group-writable one ignored"
			else
				cat "$SEC/ok.out" "$SEC/gw.out" >"$SEC/conf.out"
				fail "security: sudo: /etc/uringcheck.conf" "allowed: $(head -1 "$SEC/ok.out"); group-writable: exit $rcgw" "$SEC/conf.out"
			fi
		fi
	fi
	rm -f "$sudoers"
	id "$u" >/dev/null 2>&1 && userdel "$u" 2>/dev/null
fi

# --- outputs: where and what they may be ------------------------------------------
if want "security: outputs"; then
	# Another user's symlink in a sticky, world-writable directory (as in
	# /tmp), pointing at a root-only file: root must not follow it, even
	# with fs.protected_symlinks=0.
	mkdir -m 1777 "$SEC/sticky"
	echo VICTIM >"$SEC/victim"
	chmod 600 "$SEC/victim"
	bad=""
	for opt in log-file json sarif trace events; do
		name=$opt.csv
		ln -s "$SEC/victim" "$SEC/sticky/$name"
		chown -h nobody "$SEC/sticky/$name"
		$UC --keep-warm=0 --$opt="$SEC/sticky/$name" "$BIN/inj_read_read" >/dev/null 2>"$SEC/err"
		rc=$?
		{ [ "$rc" = 70 ] && grep -q "symlink owned by another user" "$SEC/err"; } || bad="$bad $opt:$rc"
	done
	if [ -z "$bad" ] && [ "$(cat "$SEC/victim")" = VICTIM ]; then
		pass "security: outputs: another user's symlink in a sticky directory is not followed (exit 70, every output)"
	else
		fail "security: outputs: sticky symlink" "followed or wrong status:$bad" "$SEC/err"
	fi
	# root's own symlink there is followed
	ln -s "$SEC/mine.log" "$SEC/sticky/rootlink"
	$UC --keep-warm=0 --log-file="$SEC/sticky/rootlink" "$BIN/inj_read_read" 2>"$SEC/err"
	rc=$?
	if [ "$rc" = 66 ] && grep -q overlap "$SEC/mine.log"; then
		pass "security: outputs: a symlink the directory's owner owns is followed"
	else
		fail "security: outputs: own symlink" "exit $rc" "$SEC/err"
	fi

	# %p: a new file, never one that is there (not even a symlink's target)
	"$BIN/rt_sleep" 20 &
	spid=$!
	ln -s "$SEC/victim" "$SEC/sticky/j.$spid"
	touch "$SEC/px.$spid"
	$UC -p "$spid" -d 1 --json="$SEC/sticky/j.%p" >/dev/null 2>"$SEC/err1"
	rc1=$?
	$UC -p "$spid" -d 1 --log-file="$SEC/px.%p" >/dev/null 2>"$SEC/err2"
	rc2=$?
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	if [ "$rc1" = 70 ] && [ "$rc2" = 70 ] && grep -q "exists already" "$SEC/err1" &&
	   grep -q "exists already" "$SEC/err2" && [ "$(cat "$SEC/victim")" = VICTIM ]; then
		pass "security: outputs: a %p file is always created, never reused (exit 70)"
	else
		cat "$SEC/err1" "$SEC/err2" >"$SEC/err"
		fail "security: outputs: %p exclusive" "exit $rc1 and $rc2" "$SEC/err"
	fi
fi
# Every output is opened before the target runs: a bad one is exit 70,
# named, and the program never starts.
for opt in log-file json sarif trace events; do
	rm -f "$SEC/ran"
	sec_status "outputs: a bad --$opt path ends the run before the program starts" 70 \
		$UC --keep-warm=0 --$opt=/nonexistent/dir/x.csv -- /bin/sh -c "touch $SEC/ran"
	if want "security: outputs: a bad --$opt" && [ -e "$SEC/ran" ]; then
		fail "security: outputs: --$opt" "the program ran"
	fi
done
sec_msg "outputs: the message names the option" "^uringcheck: --events=/nonexistent/dir/x.csv: No such file"
sec_status "outputs: a directory as --json" 70 $UC --keep-warm=0 --json="$SEC" /bin/true
sec_msg "outputs: a directory is named as one" "Is a directory"
if want "security: outputs: FIFO"; then
	mkfifo "$SEC/fifo"
	timeout 20 $UC --keep-warm=0 --log-file="$SEC/fifo" /bin/true 2>"$SEC/err"
	rc=$?
	if [ "$rc" = 70 ] && grep -q "no reader" "$SEC/err"; then
		pass "security: outputs: FIFO without a reader: an error, not a hang (exit 70)"
	else
		fail "security: outputs: FIFO" "exit $rc" "$SEC/err"
	fi
fi
if want "security: outputs: /dev/stdout"; then
	# the descriptors uringcheck was given, as they are, under sudo too
	# (reopening them through /proc would need root's rights)
	SUDO_UID=65534 SUDO_GID=65534 $UC --keep-warm=0 --log-file=/dev/stdout \
		--json=/dev/fd/3 "$BIN/inj_read_read" >"$SEC/stdout.log" 2>"$SEC/err" 3>"$SEC/fd3.json"
	rc=$?
	if [ "$rc" = 66 ] && grep -q 'ERROR: uringcheck: overlap' "$SEC/stdout.log" &&
	   python3 -m json.tool "$SEC/fd3.json" >/dev/null 2>&1; then
		pass "security: outputs: /dev/stdout and /dev/fd/N are the descriptors given, under sudo too"
	else
		fail "security: outputs: /dev/stdout" "exit $rc" "$SEC/err"
	fi
fi
sec_status "outputs: /dev/null (a character device) is an output" 66 \
	$UC --keep-warm=0 --sarif=/dev/null --json=/dev/null "$BIN/inj_read_read"
long=$SEC/$(printf 'x%.0s' $(seq 5000))
sec_status "outputs: a path longer than PATH_MAX is an error, not cut" 70 \
	$UC --keep-warm=0 --log-file="$long" /bin/true
sec_msg "outputs: over-long path named" "longer than PATH_MAX"

# --- write failures -------------------------------------------------------------
ln -sf /dev/full "$SEC/full.csv"
for opt in log-file json sarif trace events; do
	sec_status "write: --$opt on a full device" 70 \
		$UC --keep-warm=0 --$opt="$SEC/full.csv" "$BIN/inj_read_read"
	sec_msg "write: --$opt's failure named" "^uringcheck: --$opt=$SEC/full.csv: cannot write: No space left on device"
done
if want "security: write: a full file system"; then
	mkdir "$SEC/small"
	if mount -t tmpfs -o size=64k uctest "$SEC/small" 2>/dev/null; then
		dd if=/dev/zero of="$SEC/small/fill" bs=1k count=60 2>/dev/null
		$UC --keep-warm=0 --sarif="$SEC/small/out.sarif" "$BIN/inj_read_read" >/dev/null 2>"$SEC/err"
		rc=$?
		if [ "$rc" = 70 ] && [ ! -e "$SEC/small/out.sarif" ] && grep -q "removed" "$SEC/err"; then
			pass "security: write: a full file system: exit 70, the partial --sarif removed"
		else
			ls -l "$SEC/small" >>"$SEC/err"
			fail "security: write: a full file system" "exit $rc" "$SEC/err"
		fi
		umount "$SEC/small"
	else
		pass "security: write: a full file system (skipped: cannot mount a tmpfs)"
	fi
fi

# --- JSON: bytes that are not UTF-8 ---------------------------------------------
if want "security: json"; then
	prog="$SEC/tr"$'\xff'"ue"
	cp /bin/true "$prog"
	$UC --keep-warm=0 --json="$SEC/u.json" -- "$prog" $'a\xffb' $'\xc3\x28' >/dev/null 2>"$SEC/err"
	rc=$?
	if [ "$rc" = 0 ] && python3 -m json.tool "$SEC/u.json" >/dev/null 2>>"$SEC/err" &&
	   grep -q 'a\\u00ffb' "$SEC/u.json" && grep -q 'tr\\u00ffue' "$SEC/u.json" &&
	   grep -q '\\u00c3(' "$SEC/u.json"; then
		pass "security: json: non-UTF-8 bytes in the program and its arguments: valid JSON, each byte as \\u00XX"
	else
		fail "security: json" "exit $rc or invalid" "$SEC/err"
	fi
fi

# --- suppression files ------------------------------------------------------------
sec_status "supp: a directory is an error" 2 $UC --suppressions="$SEC" /bin/true
sec_msg "supp: a directory named as one" "'$SEC': a directory, not a regular file"
sec_status "supp: /dev/zero is an error, not an endless read" 2 timeout 20 $UC --suppressions=/dev/zero /bin/true
[ -p "$SEC/fifo" ] || mkfifo "$SEC/fifo"
sec_status "supp: a FIFO is an error, not a hang" 2 timeout 20 $UC --suppressions="$SEC/fifo" /bin/true
truncate -s 17M "$SEC/big.supp"
sec_status "supp: a file over 16 MiB is an error" 2 $UC --suppressions="$SEC/big.supp" /bin/true
sec_msg "supp: the size limit named" "larger than 16 MiB"
rm -f "$SEC/big.supp"
printf '{\n  x\n  uringcheck:overlap\n  fun:[\n}\n' >"$SEC/glob.supp"
sec_status "supp: an invalid glob is an error" 2 $UC --suppressions="$SEC/glob.supp" /bin/true
sec_msg "supp: the invalid glob's file:line" "glob.supp:4: not a valid glob"
{ printf '{\n  long\n  uringcheck:overlap\n  fun:'; head -c 5000 /dev/zero | tr '\0' x; printf '\n  nonsense\n}\n'; } >"$SEC/long.supp"
sec_status "supp: a line of 5000 bytes is one line" 2 $UC --suppressions="$SEC/long.supp" /bin/true
sec_msg "supp: the error after a long line names its line" "long.supp:5: expected fun:, src:, obj: or \.\.\.$"

# --- signals ------------------------------------------------------------------------
if want "security: signals: SIGTERM while loading"; then
	$UC --keep-warm=0 --no-share -- "$BIN/rt_sleep" 30 >/dev/null 2>"$SEC/err" &
	upid=$!
	sleep 0.05
	kill -TERM "$upid"
	start=$(date +%s)
	wait "$upid"
	rc=$?
	took=$(($(date +%s) - start))
	if [ "$rc" = 143 ] && [ "$took" -le 10 ]; then
		pass "security: signals: SIGTERM while the programs load ends the run (exit 143, ${took}s)"
	else
		fail "security: signals: SIGTERM while loading" "exit $rc after ${took}s" "$SEC/err"
	fi
	kill_ours rt_sleep
fi
if want "security: signals: SIGTERM while an output blocks"; then
	# A FIFO with a reader (this shell, read-write) that never reads:
	# --events blocks once the pipe is full; SIGTERM must still end it.
	mkfifo "$SEC/stall.csv"
	exec 7<>"$SEC/stall.csv"
	$UC --keep-warm=0 --events="$SEC/stall.csv" -- "$BIN/ok_heavy" >/dev/null 2>"$SEC/err" &
	upid=$!
	sleep 2
	kill -TERM "$upid"
	for _ in $(seq 100); do kill -0 "$upid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$upid" 2>/dev/null; then
		fail "security: signals: SIGTERM while an output blocks" "still running 10 s after SIGTERM" "$SEC/err"
		kill -KILL "$upid"
	else
		wait "$upid"
		rc=$?
		if [ "$rc" = 70 ] || [ "$rc" = 143 ]; then
			pass "security: signals: SIGTERM while an output nobody reads blocks ends the run (exit $rc)"
		else
			fail "security: signals: SIGTERM while an output blocks" "exit $rc" "$SEC/err"
		fi
	fi
	wait "$upid" 2>/dev/null
	exec 7>&-
	kill_ours ok_heavy
fi
