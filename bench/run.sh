#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# uringcheck benchmark: what does running a program under uringcheck cost?
#
#   bench/run.sh [--smoke] [--rounds N] [--out DIR]
#
#   --smoke      1 round, tiny sizes, < 60 s; what CI runs. Produces the
#                table; never fails on timing, only on broken runs.
#   --rounds N   rounds of every workload (default 5)
#   --out DIR    where results go (default bench/results; with --smoke
#                bench/results/smoke). The table is DIR/latest.txt, the
#                chart DIR/latest.png, raw numbers DIR/raw.tsv.
#
# Environment: URINGCHECK=path  the binary to measure (default ./uringcheck
#              of this tree; it is copied once at start, so a rebuild
#              during the run cannot mix two versions)
#              BENCH_SCRATCH=dir  where the data files go (default DIR/scratch;
#              must be a real file system, not tmpfs)
#
# Workloads, each run plain (A) and under uringcheck (B), interleaved
# A B A B ... within every round:
#   (a) nop_bench: NOPs in batches of 32
#   (b) fio, io_uring, 4 KiB random reads of a page-cached file, iodepth 32,
#       submitted and reaped in batches of 32
#   (c) the same at iodepth 1
#   (d) fio, 4 KiB sequential writes, fsync after each
#   (e) start-up: bench/trivial.c (one ring, one NOP), launch to exit:
#       cold (nothing to join) and warm (right after a run that kept the
#       programs, --keep-warm)
#   (f) 8 instances in parallel, each on its own NOP workload
#   (g) (c) under uringcheck --stack-size=0 (A) and with default stacks (B):
#       what stack capture costs per request
#   (h) fio, 4 KiB random reads and writes (buffered), two forked jobs at
#       iodepth 32: the workload that used to lose events and report
#       false overlaps; with the events lost under uringcheck as a column
#   (k) the profile mode beside the floor (empty programs on the same
#       hooks), the check mode and both: NOPs and fio randread qd32
#       (bench/profile_cost.sh)
#   (l) the trace (--trace) beside the checker: fio randread qd32, records
#       lost, bytes per request; the trace's bytes per request on fio with
#       one SQE per enter and on node's SQPOLL ring (bench/trace_cost.sh)
#   (i) bench/sync_reads.c: plain pread(2)s of 4 KiB from the read file by a
#       process with an idle ring (the sync-overlap hook's cost to ordinary
#       system calls), and (j) the same with a request in flight (every
#       pread sent and judged); (t) (j) after the process made 1,000 rings
#       at once and closed them (a visit of its rings must cost the rings
#       it has, not the most it or any followed process ever had)
#   (m) bench/pbuf_recv.c: 64-byte datagrams through 16 ring-provided
#       buffers with a multishot RECV, each buffer given back after its CQE
#       (the clean recycle loop: what judging provided buffers costs)
#   (n) bench/heap_free.c: malloc(4096) + free() pairs by a process with an
#       idle ring (free-inflight's uprobe on glibc's free, returning at
#       once), and (o) the same with a request in flight (every free sent
#       with its stack and judged)
#   (r) bench/heap_alloc.c: malloc(64) + free() pairs by a process with an
#       idle ring under --heap-probes, and (s) the same under
#       --heap-alloc-probes (each malloc also returns through an
#       allocation uretprobe that finds nothing watched): what naming a
#       released chunk's new owner costs (docs/benchmark.md)
#   (p) bench/stack_reads.c: a function READs 64 bytes from a pipe into an
#       array of its own frame, waits for the CQE and returns, and its caller
#       makes one more system call (stack-inflight's checks on the legal
#       pattern), and (q) the same with the array in the heap
# then untimed diagnostics: isolation of parallel instances, uringcheck's
# peak memory, per-BPF-program cost (kernel.bpf_stats_enabled), BPF load
# and attach time, and (full runs, if perf works) a CPU profile.
#
# Needs root (uringcheck loads BPF), gcc + liburing-dev, fio; gnuplot
# (Debian: gnuplot-nox) for the chart, perf and /usr/bin/time optional.
# Exit status: 0 if every run worked (whatever the timings), 1 if a run
# failed or a clean run under uringcheck reported anything, 2 usage.
set -u -o pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")

SMOKE=0
ROUNDS=
OUT=
usage() { sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case $1 in
	--smoke) SMOKE=1 ;;
	--rounds) ROUNDS=${2:-}; shift ;;
	--rounds=*) ROUNDS=${1#*=} ;;
	--out) OUT=${2:-}; shift ;;
	--out=*) OUT=${1#*=} ;;
	-h|--help) usage; exit 0 ;;
	*) echo "run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
if [ -z "$OUT" ]; then
	if [ $SMOKE = 1 ]; then OUT=$HERE/results/smoke; else OUT=$HERE/results; fi
fi
[ -n "$ROUNDS" ] || { if [ $SMOKE = 1 ]; then ROUNDS=1; else ROUNDS=5; fi; }
case $ROUNDS in ''|*[!0-9]*|0) echo "run.sh: --rounds needs a number >= 1" >&2; exit 2 ;; esac

# ---- sizes -------------------------------------------------------------------
PAR=8				# (f) instances
BG_MAX=0.25			# cores of others' CPU use that make a pair suspect
if [ $SMOKE = 1 ]; then
	NOP_N=200000		# (a) NOPs per run
	SYNC_N=200000		# (i) (j) preads per run
	HEAP_N=20000		# (n) (o) (r) (s) frees per run
	STACK_N=20000		# (p) (q) reads per run
	PBUF_N=100000		# (m) messages per run
	PAR_N=50000		# (f) NOPs per instance
	FIO_RT=1 FIO_RAMP=0	# fio seconds per run, warm-up seconds
	READ_MB=16 WRITE_MB=4	# data files
	START_RUNS=3		# (e) launches per mode per round
	DIAG_NOP_N=2000000
	QUIET_MAX=1		# s to wait for other uringcheck processes to end
	RETRIES=0		# re-runs of a pair measured on a busy machine
else
	NOP_N=5000000
	SYNC_N=2000000		# (i) (j) preads per run
	HEAP_N=200000		# (n) (o) (r) (s) frees per run
	STACK_N=200000		# (p) (q) reads per run
	PBUF_N=1000000		# (m) messages per run
	PAR_N=1000000
	FIO_RT=5 FIO_RAMP=1
	READ_MB=256 WRITE_MB=64
	START_RUNS=20
	DIAG_NOP_N=10000000
	QUIET_MAX=30
	RETRIES=3
fi

# ---- set-up ------------------------------------------------------------------
T_BEGIN=$(date +%s)
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
RAWD=$OUT/runs			# per-run output files
BIN=$OUT/bin
RAW=$OUT/raw.tsv
rm -rf "$RAWD"
mkdir -p "$RAWD" "$BIN"
: >"$RAW"
FAILS=()
NOTES=()
fail() { FAILS+=("$*"); echo "  FAILED: $*" >&2; }
say() { printf '%s\n' "$*" >&2; }
have() { command -v "$1" >/dev/null 2>&1; }
die() { echo "run.sh: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root: uringcheck loads BPF programs (run with sudo)"
SRC_UC=${URINGCHECK:-$ROOT/uringcheck}
[ -x "$SRC_UC" ] || die "$SRC_UC not built: run 'make' in $ROOT first"
have fio || die "fio not installed (apt-get install fio)"
have gcc || die "gcc not installed"
UC=$BIN/uringcheck
cp "$SRC_UC" "$UC" || die "cannot copy $SRC_UC"
UC_SUM=$(sha256sum "$UC" | cut -c1-12)
UC_VER=$("$UC" --version 2>/dev/null | head -1)

for p in nop_bench trivial keep_resident ring_cycle sync_reads pbuf_recv heap_free heap_alloc \
	 stack_reads; do
	gcc -O2 -g -Wall -Wextra -o "$BIN/$p" "$HERE/$p.c" -luring 2>"$RAWD/build.$p.err" ||
		{ cat "$RAWD/build.$p.err" >&2; die "cannot build bench/$p.c (liburing-dev installed?)"; }
done
NOP=$BIN/nop_bench
TRIV=$BIN/trivial
KR=$BIN/keep_resident

SCRATCH=${BENCH_SCRATCH:-$OUT/scratch}
mkdir -p "$SCRATCH" || die "cannot create $SCRATCH"
FSTYPE=$(stat -f -c %T "$SCRATCH")
case $FSTYPE in
tmpfs|ramfs) die "$SCRATCH is on $FSTYPE: io_uring punts its reads to io-wq, not a page-cache benchmark; set BENCH_SCRATCH to a disk file system" ;;
esac
RFILE=$SCRATCH/randread.dat
WFILE=$SCRATCH/write_fsync.dat
HFILE=$SCRATCH/randrw.dat

KR_PID=
STATS_OLD=
STATS_START=
cleanup() {
	[ -n "$KR_PID" ] && kill -TERM "$KR_PID" 2>/dev/null && wait "$KR_PID" 2>/dev/null
	[ -n "$STATS_OLD" ] && sysctl -q kernel.bpf_stats_enabled="$STATS_OLD"
	[ -n "$STATS_START" ] && sysctl -q kernel.bpf_stats_enabled=1
	rm -f "$RFILE" "$WFILE" "$HFILE"
	rmdir "$SCRATCH" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# The kernel's per-program run timing costs every BPF program run tens of
# ns: left on (by a profiler, or by hand), it would be measured as the
# checker's cost. Off for the timed runs (the diagnostics below turn it on
# for their own untimed ones), put back at the end.
if [ "$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null)" = 1 ] &&
   sysctl -q kernel.bpf_stats_enabled=0 2>/dev/null; then
	STATS_START=1
	say "  kernel.bpf_stats_enabled was 1: off for the timed runs, back on at the end"
fi

say "uringcheck benchmark: $([ $SMOKE = 1 ] && echo smoke || echo full), $ROUNDS round(s), results in $OUT"
say "  preparing $READ_MB MiB read file on $FSTYPE ($SCRATCH)"
if [ ! -s "$RFILE" ] || [ "$(stat -c %s "$RFILE")" != $((READ_MB << 20)) ]; then
	dd if=/dev/urandom of="$RFILE" bs=1M count=$READ_MB status=none || die "cannot write $RFILE"
fi
sync "$RFILE"
"$KR" "$RFILE" >"$RAWD/keep_resident.out" 2>&1 &
KR_PID=$!
for _ in $(seq 300); do
	grep -q '^resident' "$RAWD/keep_resident.out" 2>/dev/null && break
	kill -0 $KR_PID 2>/dev/null || break
	sleep 0.05
done
grep -q '^resident .* locked' "$RAWD/keep_resident.out" ||
	die "keep_resident could not lock $RFILE: $(cat "$RAWD/keep_resident.out")"
RES_TOTAL=$(sed -n 's/^resident [^ ]* [0-9]*\/\([0-9]*\).*/\1/p' "$RAWD/keep_resident.out")
RES_MIN=$RES_TOTAL		# lowest residency seen after a read run
RES_CHECKS=0

# ---- helpers -----------------------------------------------------------------
# kv FILE KEY: value of KEY=value in a RESULT line
kv() { sed -n "s/^RESULT.* $2=\([^ ]*\).*/\1/p" "$1" | head -1; }
# Results of the measurement pair in progress go to PENDING, and into RAW
# once the pair is accepted (see measure_pair).
PENDING=$RAWD/pending.tsv
raw() { printf '%s\t%s\t%s\t%s\t%s\n' "$@" >>"$PENDING"; }	# round wl mode metric value
# Other uringcheck processes (someone else's tests, say) attach tracepoint
# programs that every io_uring request on the machine runs through: they
# slow "plain" runs too. Before each measurement wait a while for them to
# go; count the measurements that still overlapped one.
FOREIGN_SEEN=0
FOREIGN_CHECKS=0
FOREIGN_WHICH=
others() { pgrep -x uringcheck 2>/dev/null | wc -l; }
# Background load: user CPU time of processes that are not ours (the
# shell's waited-for descendants), in cores, over one measurement. Kernel
# time is left out: writeback and journal threads work for (d) itself.
cpu_snap() {			# -> "user_ticks_all total_ticks user_ticks_ours"
	local ours
	ours=$(sed 's/^.*) //' /proc/$$/stat | awk '{ print $14 }')	# cutime
	awk -v o="$ours" '/^cpu / { print $2 + $3, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, o; exit }' /proc/stat
}
measure() {			# FUNCTION WORKLOAD MODE ROUND: sets BG (cores)
	local deadline=$((SECONDS + QUIET_MAX)) before after s0 s1
	while [ "$(others)" -gt 0 ] && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
	before=$(others)
	s0=$(cpu_snap)
	"$@"
	s1=$(cpu_snap)
	after=$(others)
	BG=$(echo "$s0 $s1" | awk -v n="$NCPU" '{ t = $5 - $2; b = ($4 - $1) - ($6 - $3);
		printf "%.2f", ((t > 0) ? ((b < 0) ? 0 : b) / t * n : 0) }')
	raw "$4" "$2" "$3" bg "$BG"
	FOREIGN_CHECKS=$((FOREIGN_CHECKS + 1))
	if [ "$before" -gt 0 ] || [ "$after" -gt 0 ]; then
		FOREIGN_SEEN=$((FOREIGN_SEEN + 1))
		FOREIGN_NOW=1
		case " $FOREIGN_WHICH " in *" ($2)"*) ;; *) FOREIGN_WHICH="$FOREIGN_WHICH ($2)" ;; esac
	fi
}
# A pair: plain, then under uringcheck. On a shared machine, a pair during
# which other processes used more than BG_MAX cores, or another uringcheck
# ran, is measured again (up to RETRIES times; the last try is kept).
RERUNS=0
measure_pair() {		# FUNCTION WORKLOAD ROUND
	local try bgp bgc
	for try in $(seq 0 "$RETRIES"); do
		: >"$PENDING"
		FOREIGN_NOW=0
		if [ "$2" = e ]; then
			measure "$1" "$2" both "$3"; bgp=$BG; bgc=$BG
		else
			measure "$1" "$2" plain "$3"; bgp=$BG
			measure "$1" "$2" check "$3"; bgc=$BG
		fi
		awk -v a="$bgp" -v b="$bgc" -v m="$BG_MAX" 'BEGIN { exit !(a > m || b > m) }' ||
			[ "$FOREIGN_NOW" = 1 ] || break
		[ "$try" -lt "$RETRIES" ] || break
		say "    busy machine (others used $bgp / $bgc cores$([ "$FOREIGN_NOW" = 1 ] && echo ", another uringcheck ran")): measuring ($2) again"
		RERUNS=$((RERUNS + 1))
	done
	cat "$PENDING" >>"$RAW"
}

# uringcheck's reap-lag warning ("a CQE sat ready for more than 100 ms")
# depends on scheduling: with 8 busy instances on 2 cores a target can be
# off the CPU that long. Such reports are timing, not a broken run: they
# are counted and listed, never failed. Everything else a clean run
# prints is a failure.
REAPLAG=0
REAPLAG_WHERE=
strip_timing() {		# FILE...: the output without reap-lag reports
	awk -v cnt="$RAWD/reaplag.count" '
		/^==[0-9]+==WARNING: uringcheck: reap-lag:/ { n++; skip = 1; next }
		skip && (/^==[0-9]+==[ \t]/ || /^==[0-9]+==SUMMARY: uringcheck: reap-lag/) { next }
		{ skip = 0 }
		/^==[0-9]+==uringcheck: [0-9]+ findings?: reap-lag [0-9]+$/ { next }
		# the repeats of a reap-lag told above (dedup): the header, and
		# the "N more x reap-lag" lines; a repeat of another kind stays
		/^==[0-9]+==uringcheck: [0-9]+ of them repeats? a finding told above/ { next }
		/^==[0-9]+==  [0-9]+ more x reap-lag / { next }
		/^==[0-9]+==uringcheck: kernel .* \(see --version\)$/ { next }
		/^[ \t]*$/ { next }
		{ print }
		END { print n + 0 > cnt }' "$@" 2>/dev/null
}
# clean_check NAME RC ERRFILE [LOGFILE [PID]]: a clean run must exit 0 and
# print nothing; PID: every report must be about that process (else the
# instance saw someone else's requests)
clean_check() {
	local name=$1 rc=$2 err=$3 log=${4:-} pid=${5:-} rest n
	if [ "$rc" != 0 ]; then
		fail "$name: exit status $rc ($(head -c 300 "$err" "${log:-/dev/null}" | tr '\n' ' '))"
		return 1
	fi
	if [ -n "$pid" ] && cat "$err" ${log:+"$log"} | grep -o '^==[0-9]*==' | grep -qv "^==$pid==\$"; then
		fail "$name: cross-talk: a report about another process: $(cat "$err" ${log:+"$log"} | head -3 | tr '\n' ' ')"
		return 1
	fi
	rest=$(strip_timing "$err" ${log:+"$log"})
	n=$(cat "$RAWD/reaplag.count" 2>/dev/null || echo 0)
	if [ "${n:-0}" -gt 0 ]; then
		REAPLAG=$((REAPLAG + n))
		REAPLAG_WHERE="$REAPLAG_WHERE; $name: $(grep -ho 'reap-lag [0-9.]* ms' "$err" ${log:+"$log"} | head -3 | tr '\n' ' ')"
	fi
	if [ -n "$(echo "$rest" | tr -d '[:space:]')" ]; then
		fail "$name: uringcheck printed something on a clean run: $(echo "$rest" | head -3 | tr '\n' ' ')"
		return 1
	fi
	return 0
}
residency_check() {
	local n
	n=$("$KR" --check "$RFILE" | sed -n 's/^resident [^ ]* \([0-9]*\)\/.*/\1/p')
	RES_CHECKS=$((RES_CHECKS + 1))
	[ -n "$n" ] && [ "$n" -lt "$RES_MIN" ] && RES_MIN=$n
	kill -0 "$KR_PID" 2>/dev/null || fail "keep_resident died: the read file is no longer locked"
}

# (a) ------------------------------------------------------------------------
run_nop() {			# a MODE ROUND
	local mode=$2 r=$3 b=$RAWD/a.$3.$2 rc
	if [ "$mode" = plain ]; then
		timeout -k 5 120 "$NOP" -n $NOP_N >"$b.out" 2>"$b.err"
		rc=$?
		clean_check "(a) plain round $r" $rc "$b.err" || return
	else
		timeout -k 5 120 "$UC" --log-file="$b.log" -- "$NOP" -n $NOP_N >"$b.out" 2>"$b.err"
		rc=$?
		clean_check "(a) uringcheck round $r" $rc "$b.err" "$b.log" "$(kv "$b.out" pid)" || return
	fi
	raw "$r" a "$mode" ops "$(kv "$b.out" ops_per_sec)"
	raw "$r" a "$mode" cpu_ns "$(kv "$b.out" cpu_ns_per_op)"
}

# (i) (j) ----------------------------------------------------------------------
run_sync() {			# WORKLOAD MODE ROUND
	local w=$1 mode=$2 r=$3 b=$RAWD/$1.$3.$2 rc busy=
	[ "$w" = j ] && busy=busy
	[ "$w" = t ] && busy="busy 1000"
	if [ "$mode" = plain ]; then
		# shellcheck disable=SC2086
		timeout -k 5 120 "$BIN/sync_reads" "$RFILE" $SYNC_N $busy >"$b.out" 2>"$b.err"
		rc=$?
		clean_check "($w) plain round $r" $rc "$b.err" || return
	else
		# shellcheck disable=SC2086
		timeout -k 5 120 "$UC" --log-file="$b.log" -- "$BIN/sync_reads" "$RFILE" $SYNC_N $busy \
			>"$b.out" 2>"$b.err"
		rc=$?
		clean_check "($w) uringcheck round $r" $rc "$b.err" "$b.log" || return
	fi
	raw "$r" "$w" "$mode" ops "$(kv "$b.out" ops_per_sec)"
}

# (n) (o) ----------------------------------------------------------------------
run_heap() {			# WORKLOAD MODE ROUND
	local w=$1 mode=$2 r=$3 b=$RAWD/$1.$3.$2 rc busy=
	[ "$w" = o ] && busy=busy
	if [ "$mode" = plain ]; then
		timeout -k 5 120 "$BIN/heap_free" $HEAP_N $busy >"$b.out" 2>"$b.err"
		rc=$?
		clean_check "($w) plain round $r" $rc "$b.err" || return
	else
		timeout -k 5 120 "$UC" --log-file="$b.log" -- "$BIN/heap_free" $HEAP_N $busy \
			>"$b.out" 2>"$b.err"
		rc=$?
		clean_check "($w) uringcheck round $r" $rc "$b.err" "$b.log" || return
	fi
	raw "$r" "$w" "$mode" ops "$(kv "$b.out" ops_per_sec)"
}

# (r) (s) ----------------------------------------------------------------------
run_heap_alloc() {		# WORKLOAD MODE ROUND
	local w=$1 mode=$2 r=$3 b=$RAWD/$1.$3.$2 rc probes=--heap-probes
	[ "$w" = s ] && probes=--heap-alloc-probes
	if [ "$mode" = plain ]; then
		timeout -k 5 120 "$BIN/heap_alloc" $HEAP_N >"$b.out" 2>"$b.err"
		rc=$?
		clean_check "($w) plain round $r" $rc "$b.err" || return
	else
		timeout -k 5 120 "$UC" $probes --log-file="$b.log" -- "$BIN/heap_alloc" $HEAP_N \
			>"$b.out" 2>"$b.err"
		rc=$?
		clean_check "($w) uringcheck round $r" $rc "$b.err" "$b.log" || return
	fi
	raw "$r" "$w" "$mode" ops "$(kv "$b.out" ops_per_sec)"
}

# (p) (q) ----------------------------------------------------------------------
run_stack() {			# WORKLOAD MODE ROUND
	local w=$1 mode=$2 r=$3 b=$RAWD/$1.$3.$2 rc where=
	[ "$w" = q ] && where=heap
	if [ "$mode" = plain ]; then
		timeout -k 5 120 "$BIN/stack_reads" $STACK_N $where >"$b.out" 2>"$b.err"
		rc=$?
		clean_check "($w) plain round $r" $rc "$b.err" || return
	else
		timeout -k 5 120 "$UC" --log-file="$b.log" -- "$BIN/stack_reads" $STACK_N $where \
			>"$b.out" 2>"$b.err"
		rc=$?
		clean_check "($w) uringcheck round $r" $rc "$b.err" "$b.log" || return
	fi
	raw "$r" "$w" "$mode" ops "$(kv "$b.out" ops_per_sec)"
}

# (m) ------------------------------------------------------------------------
run_pbuf() {			# m MODE ROUND
	local mode=$2 r=$3 b=$RAWD/m.$3.$2 rc
	if [ "$mode" = plain ]; then
		timeout -k 5 120 "$BIN/pbuf_recv" $PBUF_N >"$b.out" 2>"$b.err"
		rc=$?
		clean_check "(m) plain round $r" $rc "$b.err" || return
	else
		timeout -k 5 120 "$UC" --log-file="$b.log" -- "$BIN/pbuf_recv" $PBUF_N \
			>"$b.out" 2>"$b.err"
		rc=$?
		clean_check "(m) uringcheck round $r" $rc "$b.err" "$b.log" || return
	fi
	raw "$r" m "$mode" ops "$(kv "$b.out" ops_per_sec)"
}

# (b) (c) (d) ----------------------------------------------------------------
FIO_COMMON=(--ioengine=io_uring --bs=4k --time_based --runtime=$FIO_RT
	--ramp_time=$FIO_RAMP --output-format=terse --terse-version=3)
fio_args() {			# WORKLOAD
	case $1 in
	b) echo --name=randread_qd32 --filename="$RFILE" --rw=randread --invalidate=0 \
		--norandommap --iodepth=32 --iodepth_batch_submit=32 \
		--iodepth_batch_complete_min=32 ;;
	c|g) echo --name=randread_qd1 --filename="$RFILE" --rw=randread --invalidate=0 \
		--norandommap --iodepth=1 ;;
	d) echo --name=write_fsync --filename="$WFILE" --size=${WRITE_MB}m --rw=write \
		--iodepth=1 --fsync=1 ;;
	h) echo --name=randrw_2jobs --filename="$HFILE" --size=${READ_MB}m --rw=randrw \
		--numjobs=2 --group_reporting --iodepth=32 --invalidate=0 ;;
	esac
}
run_fio() {			# WORKLOAD MODE ROUND
	local w=$1 mode=$2 r=$3 b=$RAWD/$1.$3.$2 rc field ops
	local args extra=()
	read -r -a args <<<"$(fio_args "$w")"
	# (g) compares uringcheck with stacks (check) and without (plain)
	[ "$w" = g ] && [ "$mode" = plain ] && extra=(--stack-size=0)
	if [ "$mode" = plain ] && [ "$w" != g ]; then
		timeout -k 5 $((FIO_RT + FIO_RAMP + 60)) fio "${FIO_COMMON[@]}" "${args[@]}" \
			--output="$b.out" >/dev/null 2>"$b.err"
		rc=$?
		[ $rc = 0 ] || { fail "($w) fio plain round $r: exit $rc: $(head -3 "$b.err")"; return; }
	else
		[ "$w" = h ] && extra=(--json="$b.json")
		timeout -k 5 $((FIO_RT + FIO_RAMP + 60)) "$UC" "${extra[@]}" --log-file="$b.log" -- \
			fio "${FIO_COMMON[@]}" "${args[@]}" --output="$b.out" >/dev/null 2>"$b.err"
		rc=$?
		if [ "$w" = h ]; then
			# lost events are what (h) measures: counted, not a failure
			raw "$r" h check lost "$(sed -n 's/.*"events_lost":\([0-9]*\).*/\1/p' "$b.json" | head -1)"
			sed -i '/WARNING: uringcheck: [0-9]* events lost/d; /WARNING: uringcheck: [0-9]* stacks printed as not kept/d' "$b.log"
		fi
		# fio may warn on stderr; uringcheck's own reports go to the log
		clean_check "($w) fio under uringcheck round $r" $rc /dev/null "$b.log" || return
	fi
	# terse v3: field 8 read IOPS, field 49 write IOPS; (h): both
	if [ "$w" = d ]; then field=49; else field=8; fi
	if [ "$w" = h ]; then
		ops=$(awk -F';' '$1 == 3 { print $8 + $49; exit }' "$b.out")
	else
		ops=$(awk -F';' -v f=$field '$1 == 3 { print $f; exit }' "$b.out")
	fi
	[ -n "$ops" ] && [ "$ops" != 0 ] || { fail "($w) $mode round $r: no IOPS in fio output"; return; }
	raw "$r" "$w" "$mode" ops "$ops"
	[ "$w" = d ] || [ "$w" = h ] || residency_check
}

# (e) ------------------------------------------------------------------------
us_now() { local t=$EPOCHREALTIME; echo "${t/./}"; }
# Ends the --keep-warm holders this run started (their environment carries
# its UC_TESTSUITE_TAG; another user's are never signalled) and waits
# until they are gone (a dying one can still be joined; a zombie holds
# nothing).
export UC_TESTSUITE_TAG=${UC_TESTSUITE_TAG:-uc-bench-$$-$RANDOM}
our_keepers() {
	local p
	for p in $(pgrep -x uringcheck-warm); do
		[ "$(ps -o stat= -p "$p" 2>/dev/null | cut -c1)" = Z ] && continue
		{ tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null |
			grep -qx "UC_TESTSUITE_TAG=$UC_TESTSUITE_TAG" && echo "$p"
	done
}
no_keepers() {
	local p
	for p in $(our_keepers); do kill "$p" 2>/dev/null; done
	for _ in $(seq 50); do
		[ -z "$(our_keepers)" ] && return 0
		sleep 0.02
	done
}
run_startup() {			# e both ROUND
	local r=$3 k t0 t1 t2 t3 t4 t5 rc b=$RAWD/e.$3
	for k in $(seq $START_RUNS); do
		t0=$EPOCHREALTIME
		"$TRIV" 2>>"$b.plain.err"
		rc=$?
		t1=$EPOCHREALTIME
		[ $rc = 0 ] || { fail "(e) trivial failed plain (exit $rc)"; return; }
		# cold: no holder to join
		no_keepers
		t5=$EPOCHREALTIME
		"$UC" --keep-warm=0 -- "$TRIV" 2>"$b.check.err"
		rc=$?
		t2=$EPOCHREALTIME
		clean_check "(e) trivial under uringcheck, round $r" $rc "$b.check.err" || return
		# warm: the next test of a suite, right after one that kept
		# the programs (--keep-warm, the default)
		"$UC" --keep-warm=2 -- "$TRIV" 2>"$b.warm.err"
		t3=$EPOCHREALTIME
		"$UC" --keep-warm=0 -- "$TRIV" 2>"$b.warm.err"
		rc=$?
		t4=$EPOCHREALTIME
		clean_check "(e) trivial under uringcheck, warm, round $r" $rc "$b.warm.err" || return
		raw "$r" e plain ms "$(awk -v a="${t0/./}" -v b="${t1/./}" 'BEGIN { printf "%.3f", (b - a) / 1000 }')"
		raw "$r" e check ms "$(awk -v a="${t5/./}" -v b="${t2/./}" 'BEGIN { printf "%.3f", (b - a) / 1000 }')"
		raw "$r" e warm ms "$(awk -v a="${t3/./}" -v b="${t4/./}" 'BEGIN { printf "%.3f", (b - a) / 1000 }')"
	done
}

# (f) ------------------------------------------------------------------------
# MODE is plain, check (timed: must be silent) or stats (isolation check:
# --stats, each instance must count exactly its own requests).
run_par() {			# f MODE ROUND
	local mode=$2 r=$3 d=$RAWD/f.$3.$2 i p fifo fd rc ok=1 pids=() n deadline
	rm -rf "$d"
	mkdir -p "$d"
	fifo=$d/go
	mkfifo "$fifo"
	for i in $(seq $PAR); do
		case $mode in
		plain) "$NOP" -n $PAR_N -g "$fifo" >"$d/$i.out" 2>"$d/$i.err" & ;;
		check) "$UC" --log-file="$d/$i.log" -- "$NOP" -n $PAR_N -g "$fifo" \
			>"$d/$i.out" 2>"$d/$i.err" & ;;
		stats) "$UC" --stats --log-file="$d/$i.log" -- "$NOP" -n $PAR_N -g "$fifo" \
			>"$d/$i.out" 2>"$d/$i.err" & ;;
		esac
		pids+=($!)
	done
	# Start the timed loops together, once every instance has attached
	# and set up its ring (each makes $fifo.ready.PID, then blocks
	# opening the FIFO; opening it read-write here releases them all).
	deadline=$((SECONDS + 60))
	while :; do
		n=$(find "$d" -name 'go.ready.*' | wc -l)
		[ "$n" -ge $PAR ] && break
		for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null || break 2; done
		[ $SECONDS -ge $deadline ] && break
		sleep 0.01
	done
	exec {fd}<>"$fifo"
	for i in $(seq $PAR); do
		wait "${pids[$((i - 1))]}"
		rc=$?
		case $mode in
		plain) clean_check "(f) plain instance $i round $r" $rc "$d/$i.err" || ok=0 ;;
		check) clean_check "(f) uringcheck instance $i of $PAR, round $r" $rc "$d/$i.err" "$d/$i.log" \
			"$(kv "$d/$i.out" pid)" || ok=0 ;;
		stats)
			local s rest
			s=$(kv "$d/$i.out" submitted)
			# (the reader's own line, --stats: not a count of requests)
			rest=$(strip_timing "$d/$i.err" "$d/$i.log" | grep . | grep -v 'stats: reader:')
			if [ $rc != 0 ] || [ "$(echo "$rest" | wc -l)" != 1 ] ||
				! echo "$rest" | grep -q "^==$(kv "$d/$i.out" pid)==uringcheck: stats: $s requests submitted, $s finished, 0 held user memory"; then
				fail "(f) isolation: instance $i did not count exactly its own $s NOPs: exit $rc: $(head -3 "$d/$i.log" "$d/$i.err" | tr '\n' ' ')"
				ok=0
			fi ;;
		esac
	done
	exec {fd}>&-
	[ $ok = 1 ] || return 1
	[ "$mode" = stats ] && return 0
	# Aggregate rate over the window from the first start to the last end;
	# CPU time per NOP averaged over the instances.
	cat "$d"/*.out | awk -v mode="$mode" -v r="$r" '
		/^RESULT/ {
			for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			ops += v["ops"]; cpu += v["cpu_ns_per_op"]; n++
			if (!s || v["start_ns"] < s) s = v["start_ns"]
			if (v["end_ns"] > e) e = v["end_ns"]
		}
		END {
			printf "%s\tf\t%s\tops\t%.0f\n", r, mode, ops / ((e - s) / 1e9)
			printf "%s\tf\t%s\tcpu_ns\t%.2f\n", r, mode, cpu / n
		}' >>"$PENDING"
}

# ---- rounds ------------------------------------------------------------------
NCPU=$(nproc)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
if [ $SMOKE = 0 ]; then
	say "  warm-up (untimed)"
	"$NOP" -n $NOP_N >/dev/null 2>&1
	"$UC" -- "$NOP" -n $NOP_N >/dev/null 2>&1
	fio "${FIO_COMMON[@]/--runtime=$FIO_RT/--runtime=1}" $(fio_args b) --output=/dev/null >/dev/null 2>&1
	fio "${FIO_COMMON[@]/--runtime=$FIO_RT/--runtime=1}" $(fio_args d) --output=/dev/null >/dev/null 2>&1
fi
for r in $(seq "$ROUNDS"); do
	say "  round $r/$ROUNDS: (a) nop"
	measure_pair run_nop a "$r"
	for w in b c d; do
		say "  round $r/$ROUNDS: ($w) fio $(fio_args $w | sed 's/ .*//; s/--name=//')"
		measure_pair run_fio $w "$r"
	done
	say "  round $r/$ROUNDS: (g) fio qd1, uringcheck --stack-size=0 vs default stacks"
	measure_pair run_fio g "$r"
	say "  round $r/$ROUNDS: (h) fio randrw, 2 jobs, qd32"
	measure_pair run_fio h "$r"
	say "  round $r/$ROUNDS: (i) (j) (t) pread 4k, ring idle / busy / busy after 1,000 rings"
	measure_pair run_sync i "$r"
	measure_pair run_sync j "$r"
	measure_pair run_sync t "$r"
	say "  round $r/$ROUNDS: (m) provided-buffer recycle loop"
	measure_pair run_pbuf m "$r"
	say "  round $r/$ROUNDS: (n) (o) malloc+free 4k, ring idle / busy"
	measure_pair run_heap n "$r"
	measure_pair run_heap o "$r"
	say "  round $r/$ROUNDS: (r) (s) malloc+free 64 B, --heap-probes / --heap-alloc-probes"
	measure_pair run_heap_alloc r "$r"
	measure_pair run_heap_alloc s "$r"
	say "  round $r/$ROUNDS: (p) (q) READ 64 B into a frame's array / the heap, waited"
	measure_pair run_stack p "$r"
	measure_pair run_stack q "$r"
	say "  round $r/$ROUNDS: (e) start-up x$START_RUNS"
	measure_pair run_startup e "$r"
	say "  round $r/$ROUNDS: (f) $PAR instances in parallel"
	measure_pair run_par f "$r"
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- (k) the profile mode beside the floor (bench/profile_cost.sh) -------------
PC_OUT=$RAWD/profile_cost.txt
if [ -x "$ROOT/.output/bench/floor" ]; then
	say "(k) profile mode: plain, floor, profile, check, check+profile, interleaved"
	"$HERE/profile_cost.sh" "$UC" "$ROOT/.output/bench/floor" "$NOP" "$RFILE" "$ROUNDS" \
		"$NOP_N" "$FIO_RT" >"$PC_OUT" 2>"$RAWD/profile_cost.err" ||
		fail "(k) profile_cost.sh: $(head -3 "$RAWD/profile_cost.err")"
else
	echo "(k) not run: .output/bench/floor missing (make)" >"$PC_OUT"
fi

# ---- (l) the trace beside the checker (bench/trace_cost.sh) ---------------------
TC_OUT=$RAWD/trace_cost.txt
say "(l) trace: plain, check, check+trace, profile+trace, interleaved"
"$HERE/trace_cost.sh" "$UC" "$RFILE" "$ROUNDS" "$FIO_RT" "$RAWD" >"$TC_OUT" \
	2>"$RAWD/trace_cost.err" || fail "(l) trace_cost.sh: $(head -3 "$RAWD/trace_cost.err")"

# ---- diagnostics (untimed) -----------------------------------------------------
say "  diagnostics: isolation of $PAR parallel instances (--stats)"
ISOLATION="FAILED"
run_par f stats 0 && ISOLATION="ok"

# Peak memory of the uringcheck process itself: VmHWM sampled from /proc
# while it runs, split into anonymous memory and file-backed mappings (the
# BPF ring buffer is mapped into it and counts as RSS); plus the kernel
# memory its BPF maps hold (memlock from fdinfo).
mem_sample() {			# PID PREFIX -> PREFIX.mem: hwm_kb anon_kb file_kb maps_bytes
	local pid=$1 pre=$2 hwm=0 anon=0 file=0 maps=0 v
	while kill -0 "$pid" 2>/dev/null; do
		v=$(awk '/^VmHWM:/ { h = $2 } /^RssAnon:/ { a = $2 } /^RssFile:/ { f = $2 }
			END { print h + 0, a + 0, f + 0 }' "/proc/$pid/status" 2>/dev/null) || break
		set -- $v
		[ "${1:-0}" -gt $hwm ] && hwm=$1
		[ "${2:-0}" -gt $anon ] && anon=$2
		[ "${3:-0}" -gt $file ] && file=$3
		# BPF maps appear during the load: keep the largest total seen
		v=$(awk 'FNR == 1 { if (m) s += k; m = 0 } /^map_type:/ { m = 1 } /^memlock:/ { k = $2 }
			END { if (m) s += k; print s + 0 }' /proc/$pid/fdinfo/* 2>/dev/null)
		[ "${v:-0}" -gt $maps ] && maps=$v
		sleep 0.05
	done
	echo "$hwm $anon $file $maps" >"$pre.mem"
}
child_of() {			# PID: wait for and print its first child
	local i c
	for i in $(seq 200); do
		c=$(cat "/proc/$1/task/$1/children" 2>/dev/null | awk '{ print $1 }')
		[ -n "$c" ] && { echo "$c"; return; }
		sleep 0.01
	done
}
say "  diagnostics: peak memory"
TIME_RSS_A="n/a (/usr/bin/time not installed)"
if [ -x /usr/bin/time ]; then
	/usr/bin/time -v -o "$RAWD/mem.a.time" "$UC" -- "$NOP" -n $NOP_N >"$RAWD/mem.a.out" 2>&1 &
	tp=$!
	ucp=$(child_of $tp)
	[ -n "$ucp" ] && mem_sample "$ucp" "$RAWD/mem.a"
	wait $tp
	TIME_RSS_A=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f MiB", $2 / 1024 }' "$RAWD/mem.a.time")
else
	"$UC" -- "$NOP" -n $NOP_N >"$RAWD/mem.a.out" 2>&1 &
	tp=$!
	mem_sample $tp "$RAWD/mem.a"
	wait $tp
fi
"$UC" -- fio "${FIO_COMMON[@]}" $(fio_args b) --output=/dev/null >"$RAWD/mem.b.out" 2>&1 &
tp=$!
mem_sample $tp "$RAWD/mem.b"
wait $tp

# Per-program cost: kernel.bpf_stats_enabled=1 makes the kernel time every
# BPF program run (itself a few tens of ns per run, so these runs are not
# timed). Sampled twice during a run; the deltas are steady-state.
prog_stats() {			# PID -> "id run_time_ns run_cnt" per program it runs
	# The programs' ids, from the instance's descriptors: its links name
	# the program they attach (a loaded instance keeps links, not always
	# the programs' own descriptors, whose fdinfo alone has the counts:
	# reading only those, the table said "no uc_submit runs seen"). The
	# counts then come from bpftool, for those ids only.
	local ids
	ids=$(sed -n 's/^prog_id:[[:space:]]*//p' /proc/$1/fdinfo/* 2>/dev/null | sort -u | tr '\n' ' ')
	[ -n "$ids" ] && have bpftool || return 0
	bpftool -j prog show 2>/dev/null | IDS=$ids python3 -c 'import json, os, sys
ids = set(int(i) for i in os.environ["IDS"].split())
for p in json.load(sys.stdin):
    if p["id"] in ids and "run_cnt" in p:
        print(p["id"], p.get("run_time_ns", 0), p["run_cnt"])'
}
prog_names() {			# "id name" of every loaded program (ours are still loaded)
	have bpftool && bpftool prog show 2>/dev/null | sed -n 's/^\([0-9]*\): .* name \([^ ]*\) .*/\1 \2/p'
}
bpf_cost() {			# LABEL SECONDS_BEFORE SECONDS_BETWEEN CMD...: per-program ns/run
	local label=$1 t1=$2 t2=$3 pid
	shift 3
	"$UC" -- "$@" >"$RAWD/bpfstats.$label.out" 2>&1 &
	pid=$!
	sleep "$t1"
	prog_stats $pid >"$RAWD/bpfstats.$label.1"
	sleep "$t2"
	prog_stats $pid >"$RAWD/bpfstats.$label.2"
	prog_names >"$RAWD/bpfstats.$label.names"
	wait $pid
	join <(sort "$RAWD/bpfstats.$label.1") <(sort "$RAWD/bpfstats.$label.2") |
		join - <(sort "$RAWD/bpfstats.$label.names") -a 1 |
		awk '$5 - $3 > 0 { print ($6 == "" ? "id" $1 : $6), $4 - $2, $5 - $3 }' \
		>"$RAWD/bpfstats.$label"
}
BPF_STATS_OK=0
if STATS_OLD=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null) &&
	sysctl -q kernel.bpf_stats_enabled=1 2>/dev/null; then
	say "  diagnostics: per-BPF-program cost (kernel.bpf_stats_enabled=1)"
	BPF_STATS_OK=1
	if [ $SMOKE = 1 ]; then
		bpf_cost a 0.3 0.3 "$NOP" -n $DIAG_NOP_N
		bpf_cost b 0.4 0.4 fio "${FIO_COMMON[@]/--runtime=$FIO_RT/--runtime=1}" $(fio_args b) --output=/dev/null
		bpf_cost c 0.4 0.4 fio "${FIO_COMMON[@]/--runtime=$FIO_RT/--runtime=1}" $(fio_args c) --output=/dev/null
	else
		bpf_cost a 0.5 1.5 "$NOP" -n $DIAG_NOP_N
		bpf_cost b 1.5 2 fio "${FIO_COMMON[@]/--runtime=$FIO_RT/--runtime=5}" $(fio_args b) --output=/dev/null
		bpf_cost c 1.5 2 fio "${FIO_COMMON[@]/--runtime=$FIO_RT/--runtime=5}" $(fio_args c) --output=/dev/null
	fi
	sysctl -q kernel.bpf_stats_enabled="$STATS_OLD"
	STATS_OLD=
fi

say "  diagnostics: BPF load and attach time (uringcheck -v)"
for i in $(seq 5); do
	"$UC" -v -- "$TRIV" 2>&1 | sed -n 's/.*BPF loaded in \([0-9.]*\) ms, attached in \([0-9.]*\) ms.*/\1 \2/p'
done >"$RAWD/load_attach"

# Start-up split: when does the target start, and how long after it ends
# does uringcheck exit? The target is bash printing its start time.
say "  diagnostics: ring set-up and teardown (bench/ring_cycle.c, 3 runs each, interleaved)"
for i in 1 2 3; do
	echo "plain $("$BIN/ring_cycle" 2000 | cut -d' ' -f1)"
	echo "check $("$UC" --keep-warm=0 -- "$BIN/ring_cycle" 2000 | cut -d' ' -f1)"
done >"$RAWD/ring_cycle"

say "  diagnostics: start-up split (before the target runs / after it exits)"
for i in $(seq 5); do
	for mode in plain check; do
		t0=$EPOCHREALTIME
		if [ $mode = plain ]; then
			ts=$(bash -c 'echo $EPOCHREALTIME')
		else
			ts=$("$UC" -- bash -c 'echo $EPOCHREALTIME')
		fi
		t1=$EPOCHREALTIME
		echo "$mode ${t0/./} ${ts/./} ${t1/./}"
	done
done >"$RAWD/startup_split"

# Does anything go to io-wq? (perf counts the io_uring tracepoints; on tmpfs
# every read would.) And, full runs only, where fio's CPU goes under
# uringcheck (perf cpu-clock: hardware counters may not exist in a VM).
IOWQ="not checked (perf not available)"
PERF_OK=0
if have perf && perf stat -e io_uring:io_uring_queue_async_work -x, -o "$RAWD/perf.probe" true >/dev/null 2>&1; then
	PERF_OK=1
	perf stat -x, -o "$RAWD/iowq.perf" -e io_uring:io_uring_submit_req,io_uring:io_uring_queue_async_work -- \
		fio "${FIO_COMMON[@]/--runtime=$FIO_RT/--runtime=1}" $(fio_args b) --output=/dev/null >/dev/null 2>&1
	IOWQ=$(awk -F, '/io_uring_submit_req/ { s = $1 } /io_uring_queue_async_work/ { q = $1 }
		END { printf "%s of %s reads went to io-wq", q, s }' "$RAWD/iowq.perf")
fi
PROFILE=
PROFILE_START=
if [ $SMOKE = 0 ] && [ $PERF_OK = 1 ]; then
	say "  diagnostics: CPU profile of (b) under uringcheck (perf, cpu-clock)"
	"$UC" -- fio "${FIO_COMMON[@]/--runtime=$FIO_RT/--runtime=5}" $(fio_args b) --output=/dev/null >/dev/null 2>&1 &
	pid=$!
	sleep 1.5
	perf record -q -e cpu-clock -F 2999 -a -g -o "$RAWD/perf.data" -- sleep 2 >/dev/null 2>&1
	wait $pid
	perf report -i "$RAWD/perf.data" --comm fio --children --percentage relative --sort sym \
		--stdio -g none 2>/dev/null >"$OUT/profile.txt"
	say "  diagnostics: CPU profile of uringcheck's start-up (perf, cpu-clock)"
	perf record -q -e cpu-clock -F 4999 -g -o "$RAWD/perf.startup.data" -- \
		bash -c "for i in 1 2 3 4 5 6 7 8; do '$UC' -- '$TRIV'; done" >/dev/null 2>&1
	perf report -i "$RAWD/perf.startup.data" --comm uringcheck --children --percentage relative \
		--sort sym --stdio -g none 2>/dev/null >"$OUT/profile.startup.txt"
	spick() { awk -v s="$1" '$NF == s && $1 ~ /%$/ { sub("%", "", $1); print $1; exit }' "$OUT/profile.startup.txt"; }
	if [ -s "$OUT/profile.startup.txt" ]; then
		S_VER=$(spick bpf_prog_load) S_MAP=$(spick map_create) S_HTAB=$(spick htab_map_alloc)
		S_BTF=$(spick kernfs_fop_read_iter) S_ATT=$(spick bpf_raw_tp_link_attach) S_DET=$(spick bpf_link_release)
		S_BTFU=$(awk '($NF == "btf__type_by_id" || $NF == "btf_scan_open" || $NF == "btf__str_by_offset") && $2 ~ /%$/ {
			sub("%", "", $2); s += $2 } END { print s + 0 }' "$OUT/profile.startup.txt")
		PROFILE_START=$(awk -v v="${S_VER:-0}" -v m="${S_MAP:-0}" -v h="${S_HTAB:-0}" -v b="${S_BTF:-0}" \
			-v bu="${S_BTFU:-0}" -v a="${S_ATT:-0}" -v d="${S_DET:-0}" 'BEGIN {
			printf "uringcheck CPU at start-up: verifier (bpf_prog_load) %.0f%%, map creation %.0f%% (hash-table preallocation %.0f%%),\n", v, m, h
			printf "    reading kernel BTF %.0f%% + looking things up in it %.0f%%, tracepoint attach %.0f%%, detach %.0f%%, the rest %.0f%%", b, bu, a, d, 100 - v - m - b - bu - a - d }')
	fi
	pick() { awk -v s="$1" '$NF == s && $1 ~ /%$/ { sub("%", "", $1); print $1; exit }' "$OUT/profile.txt"; }
	if [ -s "$OUT/profile.txt" ]; then
		P_SUB=$(pick bpf_trace_run1) P_COMP=$(pick bpf_trace_run3) P_SYS=$(pick bpf_trace_run2)
		P_IRQ=$(pick irq_work_queue) P_RBO=$(pick bpf_ringbuf_output)
		P_RBS=$(pick bpf_ringbuf_submit) P_RBQ=$(pick bpf_ringbuf_query)
		P_HU=$(pick htab_map_update_elem) P_HD=$(pick htab_map_delete_elem)
		P_HL=$(pick __htab_map_lookup_elem) P_KT=$(pick ktime_get_mono_fast_ns)
		P_PR=$(pick bpf_probe_read_kernel) P_READ=$(pick filemap_read)
		P_STK=$(awk '($NF == "bpf_probe_read_user" || $NF == "bpf_find_vma" || $NF == "bpf_task_pt_regs") && $1 ~ /%$/ {
			sub("%", "", $1); s += $1 } END { print s + 0 }' "$OUT/profile.txt")
		PROFILE=$(awk -v sub_="${P_SUB:-0}" -v comp="${P_COMP:-0}" -v sys="${P_SYS:-0}" -v irq="${P_IRQ:-0}" \
			-v rbo="${P_RBO:-0}" -v rbs="${P_RBS:-0}" -v rbq="${P_RBQ:-0}" \
			-v hu="${P_HU:-0}" -v hd="${P_HD:-0}" -v hl="${P_HL:-0}" -v kt="${P_KT:-0}" \
			-v pr="${P_PR:-0}" -v rd="${P_READ:-0}" -v stk="${P_STK:-0}" 'BEGIN {
			printf "fio CPU under uringcheck, (b): BPF programs %.1f%% (io_uring_submit_req %.1f%%, io_uring_complete %.1f%%, sys_enter/sys_exit %.1f%%);\n", sub_ + comp + sys, sub_, comp, sys
			printf "    inside them: ring buffer %.1f%% (of which wakeup irq_work/IPI %.1f%%), hash maps %.1f%%, bpf_ktime_get_ns %.1f%%, probe_read_kernel %.1f%%,\n", rbo + rbs + rbq, irq, hu + hd + hl, kt, pr
			printf "    user stack capture (probe_read_user, find_vma) %.1f%%;\n", stk
			printf "    for scale: the page-cache copy itself (filemap_read) %.1f%%", rd }')
	fi
fi

# ---- table -------------------------------------------------------------------
# stat3: median min max of the values on stdin
stat3() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) { print "? ? ?"; exit }
	m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m, v[1], v[NR] }'; }
vals() { awk -F'\t' -v w="$1" -v m="$2" -v k="$3" '$2 == w && $3 == m && $4 == k { print $5 }' "$RAW"; }
# per-round pairs: ROUND plain check
pairs() { awk -F'\t' -v w="$1" -v k="$2" '$2 == w && $4 == k { v[$1, $3] = $5; r[$1] = 1 }
	END { for (i in r) if (((i, "plain") in v) && ((i, "check") in v)) print i, v[i, "plain"], v[i, "check"] }' "$RAW"; }
ratios() { pairs "$1" ops | awk '{ print $3 / $2 }'; }
added_ns() { pairs "$1" ops | awk '{ printf "%.1f\n", (1 / $3 - 1 / $2) * 1e9 }'; }
fmt_rate() { awk -v x="$1" 'BEGIN { if (x == "?") print "?"; else if (x >= 1e6) printf "%.2fM", x / 1e6;
	else if (x >= 1e4) printf "%.1fk", x / 1e3; else printf "%.0f", x }'; }
rate_cell() { set -- $(vals "$1" "$2" ops | stat3); echo "$(fmt_rate $1) [$(fmt_rate $2)..$(fmt_rate $3)]"; }
num_cell() {			# FORMAT [SUFFIX] < values: "med[suffix] [min-max]"
	local f=$1 sfx=${2:-}
	stat3 | awk -v f="$f" -v s="$sfx" '{ if ($1 == "?") { print "?"; exit }
		printf f s " [" f ".." f "]\n", $1, $2, $3 }'
}

TABLE=$OUT/latest.txt
CHART_DAT=$OUT/chart.dat
CPU_MODEL=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
MEM_GIB=$(awk '/^MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo)
if [ -n "${URINGCHECK:-}" ]; then
	GIT_REV="binary $URINGCHECK"
else
	GIT_REV="tree $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "?")"
	[ -n "$(git -C "$ROOT" status --porcelain -- bpf checker reports 2>/dev/null)" ] &&
		GIT_REV="$GIT_REV + uncommitted changes in bpf/ checker/ reports/"
fi
LIBURING=$(dpkg-query -W -f='${Version}' liburing-dev 2>/dev/null || echo "?")
MET=0 TARGETS=0 MISSED=()
verdict() {			# VALUE LIMIT NAME: sets V to PASS/MISS, counts
	TARGETS=$((TARGETS + 1))
	if awk -v v="$1" -v l="$2" 'BEGIN { exit !(v != "?" && v <= l) }'; then
		MET=$((MET + 1)); V=PASS
	else
		MISSED+=("$3"); V=MISS
	fi
}
vcode() { case $1 in PASS) echo 1 ;; MISS) echo 2 ;; *) echo 0 ;; esac; }	# for the chart
chart_row() {			# IDX LABEL MED MIN MAX TARGET CODE: "no data" rows as 0 with code 3
	if [ "$3" = "?" ]; then
		echo "$1 \"$2\" 0 0 0 $6 3"
	else
		echo "$1 \"$2\" $3 $4 $5 $6 $7"
	fi
}
ROWFMT='%-26s %-6s %-24s %-25s %-21s %-24s %-10s %s\n'
{
	echo "uringcheck benchmark: $([ $SMOKE = 1 ] && echo "SMOKE run (tiny sizes: timings are indicative only)" || echo "full run"), $ROUNDS round(s), plain and checked runs interleaved (A B A B ...)"
	echo "date:      $(date -u '+%Y-%m-%d %H:%M UTC'), $(( $(date +%s) - T_BEGIN )) s"
	echo "machine:   Linux $(uname -r) $(uname -m), $CPU_MODEL, $NCPU cores, $MEM_GIB GiB RAM"
	echo "software:  $UC_VER (sha256 $UC_SUM), $GIT_REV; fio $(fio --version | sed 's/^fio-//'), liburing $LIBURING"
	echo "sizes:     (a) $NOP_N NOPs/run; (b)-(d) fio ${FIO_RT} s/run after ${FIO_RAMP} s ramp, read file $READ_MB MiB, write file $WRITE_MB MiB; (e) $START_RUNS launches/mode/round; (f) $PAR x $PAR_N NOPs"
	echo
	printf "$ROWFMT" "workload" "unit" "plain med [min..max]" "uringcheck med [min..max]" "ratio u/p [min..max]" "added/request [min..max]" "target" "verdict"
	printf "$ROWFMT" "--------" "----" "-------------------" "------------------------" "-------------------" "-----------------------" "------" "-------"
	: >"$CHART_DAT"
	idx=0
	for w in a b c d; do
		case $w in
		a) label="(a) NOP, batches of 32"; unit="ops/s"; short="(a) NOP x32" ;;
		b) label="(b) fio randread 4k qd32"; unit="IOPS"; short="(b) fio qd32" ;;
		c) label="(c) fio randread 4k qd1"; unit="IOPS"; short="(c) fio qd1" ;;
		d) label="(d) fio write 4k+fsync"; unit="ops/s*"; short="(d) write+fsync" ;;
		esac
		rc_=$(ratios $w | num_cell "%.3f")
		ad=$(added_ns $w | num_cell "%+.0f" " ns")
		admed=$(added_ns $w | stat3 | cut -d' ' -f1)
		target="-" v="-" tratio="?"
		if [ $w = a ] || [ $w = b ]; then
			target="<= 400 ns"
			verdict "$admed" 400 "($w) added ns per request"; v=$V
			# the ratio at which the added cost is exactly 400 ns
			pmed=$(vals $w plain ops | stat3 | cut -d' ' -f1)
			tratio=$(awk -v p="$pmed" 'BEGIN { if (p == "?") print "?"; else printf "%.4f", 1 / (1 + 400e-9 * p) }')
		fi
		printf "$ROWFMT" "$label" "$unit" "$(rate_cell $w plain)" "$(rate_cell $w check)" "$rc_" "$ad" "$target" "$v"
		set -- $(ratios $w | stat3)
		chart_row "$idx" "$short" "$1" "$2" "$3" "$tratio" "$(vcode "$v")" >>"$CHART_DAT"
		idx=$((idx + 1))
	done
	# (e) start-up: launch-to-exit times, cold (nothing to join) and warm
	# (right after a run that kept the programs)
	for emode in check warm; do
		if [ $emode = check ]; then elabel="(e) start-up cold, trivial.c"; etarget=60
		else elabel="(e) start-up warm, trivial.c"; etarget=25; fi
		set -- $(vals e plain ms | stat3); pm=$1
		pcell=$(vals e plain ms | num_cell "%.1f")
		ccell=$(vals e $emode ms | num_cell "%.1f")
		# per round: the median launch time of that round's runs, each mode
		e_rounds=$(awk -F'\t' -v m=$emode '$2 == "e" && ($3 == "plain" || $3 == m) { print $1, $3, $5 }' "$RAW" |
			sed "s/ $emode / zcheck /" | sort -k1,1n -k2,2 -k3,3g |
			awk '{ k = $1 " " $2; v[k, ++n[k]] = $3; r[$1] = 1 }
			function med(k) { c = n[k]; return c % 2 ? v[k, (c + 1) / 2] : (v[k, c / 2] + v[k, c / 2 + 1]) / 2 }
			END { for (i in r) print i, med(i " plain"), med(i " zcheck") }')
		ecell=$(echo "$e_rounds" | awk 'NF == 3 { print $3 - $2 }' | num_cell "%+.1f" " ms")
		emed=$(echo "$e_rounds" | awk 'NF == 3 { print $3 - $2 }' | stat3 | cut -d' ' -f1)
		eratio_cell=$(echo "$e_rounds" | awk 'NF == 3 { print $2 / $3 }' | num_cell "%.3f")
		verdict "$emed" $etarget "$elabel"
		printf "$ROWFMT" "$elabel" "ms/run" "$pcell" "$ccell" "$eratio_cell" \
			"$ecell" "<= $etarget ms" "$V"
		etr=$(awk -v p="$pm" -v t=$etarget 'BEGIN { if (p == "?") print "?"; else printf "%.4f", p / (p + t) }')
		set -- $(echo "$e_rounds" | awk 'NF == 3 { print $2 / $3 }' | stat3)
		chart_row "$idx" "(e) $([ $emode = check ] && echo cold || echo warm)" "$1" "$2" "$3" "$etr" "$(vcode "$V")" >>"$CHART_DAT"
		idx=$((idx + 1))
	done
	# (f) 8 instances: per-request CPU cost vs one instance, per round
	frat=$(join <(pairs a cpu_ns | sort) <(pairs f cpu_ns | sort) |
		awk '{ c1 = $3 - $2; c8 = $5 - $4; if (c1 > 0) print c8 / c1 }')
	f8=$(pairs f cpu_ns | awk '{ printf "%.1f\n", $3 - $2 }' | num_cell "%+.0f" " ns")
	f1=$(pairs a cpu_ns | awk '{ printf "%.1f\n", $3 - $2 }' | stat3 | cut -d' ' -f1)
	fmed=$(echo "$frat" | grep . | stat3 | cut -d' ' -f1)
	verdict "$fmed" 1.5 "(f) $PAR instances vs 1"
	printf "$ROWFMT" "(f) $PAR instances, NOP x32" "agg/s" "$(rate_cell f plain)" "$(rate_cell f check)" \
		"$(ratios f | num_cell "%.3f")" "$f8" "<= 1.5x(a)" "$V"
	printf "$ROWFMT" "    cost vs 1 instance" "" "" "" "" \
		"$(echo "$frat" | grep . | num_cell "%.2f" "x") of $(awk -v x="$f1" 'BEGIN { printf "%+.0f", x }') ns" "" ""
	set -- $(echo "$frat" | grep . | stat3)
	chart_row 0 "(f) $PAR instances" "$1" "$2" "$3" 1.5 "$(vcode "$V")" >"$CHART_DAT.f"
	printf "$ROWFMT" "(g) qd1: stacks off / on" "IOPS" "$(rate_cell g plain)" "$(rate_cell g check)" \
		"$(ratios g | num_cell "%.3f")" "$(added_ns g | num_cell "%+.0f" " ns")" "-" "-"
	printf "$ROWFMT" "(h) randrw 2 jobs qd32" "IOPS" "$(rate_cell h plain)" "$(rate_cell h check)" \
		"$(ratios h | num_cell "%.3f")" "$(added_ns h | num_cell "%+.0f" " ns")" "-" "-"
	printf "$ROWFMT" "    events lost" "events" "" "$(vals h check lost | num_cell "%.0f")" "" "" "-" "-"
	printf "$ROWFMT" "(i) pread 4k, ring idle" "ops/s" "$(rate_cell i plain)" "$(rate_cell i check)" \
		"$(ratios i | num_cell "%.3f")" "$(added_ns i | num_cell "%+.0f" " ns")" "-" "-"
	printf "$ROWFMT" "(j) pread 4k, ring busy" "ops/s" "$(rate_cell j plain)" "$(rate_cell j check)" \
		"$(ratios j | num_cell "%.3f")" "$(added_ns j | num_cell "%+.0f" " ns")" "-" "-"
	printf "$ROWFMT" "(t) (j) after 1,000 rings" "ops/s" "$(rate_cell t plain)" "$(rate_cell t check)" \
		"$(ratios t | num_cell "%.3f")" "$(added_ns t | num_cell "%+.0f" " ns")" "-" "-"
	printf "$ROWFMT" "(m) provided buffers, recycle" "msgs/s" "$(rate_cell m plain)" "$(rate_cell m check)" \
		"$(ratios m | num_cell "%.3f")" "$(added_ns m | num_cell "%+.0f" " ns")" "-" "-"
	printf "$ROWFMT" "(n) malloc+free 4k, ring idle" "ops/s" "$(rate_cell n plain)" "$(rate_cell n check)" \
		"$(ratios n | num_cell "%.3f")" "$(added_ns n | num_cell "%+.0f" " ns")" "-" "-"
	printf "$ROWFMT" "(o) malloc+free 4k, ring busy" "ops/s" "$(rate_cell o plain)" "$(rate_cell o check)" \
		"$(ratios o | num_cell "%.3f")" "$(added_ns o | num_cell "%+.0f" " ns")" "-" "-"
	printf "$ROWFMT" "(r) malloc+free 64, heap probes" "ops/s" "$(rate_cell r plain)" "$(rate_cell r check)" \
		"$(ratios r | num_cell "%.3f")" "$(added_ns r | num_cell "%+.0f" " ns")" "-" "-"
	printf "$ROWFMT" "(s) the same, + alloc probes" "ops/s" "$(rate_cell s plain)" "$(rate_cell s check)" \
		"$(ratios s | num_cell "%.3f")" "$(added_ns s | num_cell "%+.0f" " ns")" "-" "-"
	printf "$ROWFMT" "(p) READ 64 B into a frame" "ops/s" "$(rate_cell p plain)" "$(rate_cell p check)" \
		"$(ratios p | num_cell "%.3f")" "$(added_ns p | num_cell "%+.0f" " ns")" "-" "-"
	printf "$ROWFMT" "(q) READ 64 B into the heap" "ops/s" "$(rate_cell q plain)" "$(rate_cell q check)" \
		"$(ratios q | num_cell "%.3f")" "$(added_ns q | num_cell "%+.0f" " ns")" "-" "-"
	echo
	echo "targets met: $MET of $TARGETS$([ ${#MISSED[@]} -gt 0 ] && printf '; missed: %s' "$(IFS=,; echo "${MISSED[*]}" | sed 's/,/, /g')")$([ $SMOKE = 1 ] && echo " (smoke: informational, never fails)")"
	echo
	echo "how to read it"
	echo "  med [min..max]  median over rounds, and the extremes; (e) plain/uringcheck columns: over all launches"
	echo "  ratio u/p       throughput under uringcheck / plain, per round (1.000 = free); (e): plain time / checked time"
	echo "  (g)             (c) run twice under uringcheck: plain column --stack-size=0, uringcheck column the default"
	echo "                  (8 KiB stacks); added/request = what stack capture costs per request at iodepth 1"
	echo "  added/request   1/ops_uringcheck - 1/ops_plain per round, in ns; (e): checked - plain launch-to-exit"
	echo "                  time (per round, medians of that round's launches)"
	echo "  *               (d) one op = a 4 KiB write + its fsync, i.e. two io_uring requests"
	echo "  (i) (j)         plain pread(2)s by a process with a ring: (i) nothing in flight (the hook's cost to"
	echo "                  ordinary calls), (j) a READ in flight elsewhere (each pread sent and judged: sync-overlap)"
	echo "  (t)             (j) after the process made 1,000 rings at once and closed them (its visits of its rings)"
	echo "  (n) (o)         malloc(4096)+free() pairs by a process with a ring: (n) nothing in flight (free-inflight's"
	echo "                  uprobe on free returns at once: the trap's cost), (o) a READ in flight elsewhere (each"
	echo "                  free sent with its stack and judged)"
	echo "  (r) (s)         malloc(64)+free() pairs by a process with an idle ring: (r) --heap-probes (the free"
	echo "                  probe's trap), (s) --heap-alloc-probes (and each malloc's return trap: (s) - (r) is"
	echo "                  what naming a released chunk's new owner costs an allocation)"
	echo "  (p) (q)         a function writes 64 B into a pipe, READs them back into (p) an array of its own frame"
	echo "                  (a stack range: stack-inflight's lookups) or (q) the heap, waits, returns; one more"
	echo "                  system call above the old frame each time (nothing held then: no record)"
	echo "  (m)             64-byte datagrams through 16 ring-provided buffers, multishot RECV, each buffer given"
	echo "                  back after its CQE: each message's buffer is resolved and judged at its CQE"
	echo "  (h)             IOPS = reads + writes of both jobs; events lost = records the event buffer could"
	echo "                  not take in that run (docs/lost-events.md: never a false error)"
	echo "  (f)             agg/s = all NOPs / (last end - first start); added/request = CPU ns per NOP"
	echo "                  (CLOCK_PROCESS_CPUTIME_ID, includes the BPF programs run on its behalf),"
	echo "                  uringcheck - plain, $PAR instances at once; cost vs 1 instance divides it by the same"
	echo "                  figure for one instance, from the (a) runs of the same round"
	echo
	echo "checks"
	echo "  clean runs:      every run under uringcheck exited 0 and printed nothing: $([ ${#FAILS[@]} = 0 ] && echo yes || echo "NO, ${#FAILS[@]} failure(s), see below")$([ $REAPLAG -gt 0 ] && echo ", apart from timing-dependent warnings:")"
	[ $REAPLAG -gt 0 ] && echo "                   $REAPLAG reap-lag warning(s) (a CQE left ready > 100 ms: on an oversubscribed CPU that is the scheduler, not the program)${REAPLAG_WHERE}" | fold -s -w 150 | sed '2,$s/^/                   /'
	echo "  isolation:       $PAR instances at once with --stats, each counted exactly its own requests: $ISOLATION"
	echo "  page cache:      read file resident after every read run: $RES_MIN/$RES_TOTAL pages at worst ($RES_CHECKS checks; file mlocked by keep_resident on $FSTYPE)"
	echo "  io-wq:           $IOWQ (plain (b), 1 s, perf)"
	echo "  other tracers:   $FOREIGN_SEEN of $FOREIGN_CHECKS measurements overlapped another uringcheck process (waited up to $QUIET_MAX s for quiet)$([ $FOREIGN_SEEN -gt 0 ] && echo "; affected:$FOREIGN_WHICH -- their tracepoint programs slow plain runs too")"
	echo "  background:      $(awk -F'\t' '$4 == "bg" { print $5 }' "$RAW" | stat3 | awk '{ printf "other processes used %s cores (median) and %s at most during the kept measurements", $1, $3 }');"
	echo "                   $RERUNS pair(s) re-measured because others used > $BG_MAX cores or another uringcheck ran; load average $LOAD_START at start, $LOAD_END at end"
	echo
	echo "memory (uringcheck process, separate runs)"
	if [ -s "$RAWD/mem.a.mem" ]; then
		awk -v t="$TIME_RSS_A" '{ printf "  (a) NOP:   max RSS %.1f MiB (VmHWM; anon %.1f MiB, file-backed %.1f MiB = mapped BPF ring buffer); /usr/bin/time -v max RSS %s\n", $1 / 1024, $2 / 1024, $3 / 1024, t
			printf "             BPF maps (kernel memory, memlock): %.1f MiB\n", $4 / 1048576 }' "$RAWD/mem.a.mem"
	fi
	if [ -s "$RAWD/mem.b.mem" ]; then
		awk '{ printf "  (b) fio:   max RSS %.1f MiB (VmHWM; anon %.1f MiB, file-backed %.1f MiB); BPF maps %.1f MiB\n", $1 / 1024, $2 / 1024, $3 / 1024, $4 / 1048576 }' "$RAWD/mem.b.mem"
	fi
	echo "  (/usr/bin/time reports the largest of uringcheck and its target; nop_bench alone is ~1.5 MiB)"
	echo
	echo "where the time goes"
	if [ $BPF_STATS_OK = 1 ]; then
		for l in a b c; do
			[ -s "$RAWD/bpfstats.$l" ] || continue
			awk -v l="$l" '{ t[$1] += $2; c[$1] += $3; if ($1 == "uc_submit") req += $3; tot += $2 }
				END {
					if (!req) { printf "  BPF programs, (%s): no uc_submit runs seen\n", l; exit }
					n = 0
					for (p in t) { k[++n] = p; v[n] = t[p] / req }
					for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
						if (v[j] > v[i]) { x = v[i]; v[i] = v[j]; v[j] = x; x = k[i]; k[i] = k[j]; k[j] = x }
					printf "  BPF programs, (%s): %.0f ns per request =", l, tot / req
					for (i = 1; i <= n; i++) {
						if (v[i] < 1) { rest += v[i]; continue }
						printf " %s%s %.0f ns x %.2f/req", (i > 1 ? "+ " : ""), k[i], t[k[i]] / c[k[i]], c[k[i]] / req
					}
					printf " + others %.0f ns\n", rest
				}' "$RAWD/bpfstats.$l" | fold -s -w 150 | sed '2,$s/^/      /'
		done
		echo "  (kernel.bpf_stats_enabled=1, untimed runs; the stats themselves add some ns per run; programs on"
		echo "  machine-wide hooks (sys_enter/sys_exit, sched_*) also count other processes' events, so the total is an upper bound)"
	else
		echo "  BPF per-program cost: not measured (cannot set kernel.bpf_stats_enabled)"
	fi
	if [ -s "$RAWD/load_attach" ]; then
		set -- $(cut -d' ' -f1 "$RAWD/load_attach" | stat3); lm=$1
		set -- $(cut -d' ' -f2 "$RAWD/load_attach" | stat3); am=$1
		printf '  start-up: BPF open+load %.1f ms + attach %.1f ms (uringcheck -v, median of 5) of the %.1f ms added\n' \
			"$lm" "$am" "$emed"
	fi
	if [ -s "$RAWD/startup_split" ]; then
		awk '{ pre[$1] = pre[$1] " " ($3 - $2) / 1000; post[$1] = post[$1] " " ($4 - $3) / 1000 }
			function med(s,   n, a, i, j, t) { n = split(s, a, " ");
				for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
				return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
			END { printf "  start-up split (target: bash, 5 runs, medians): +%.1f ms before the target starts, +%.1f ms after it exits\n",
				med(pre["check"]) - med(pre["plain"]), med(post["check"]) - med(post["plain"]) }' "$RAWD/startup_split"
	fi
	if [ -s "$RAWD/ring_cycle" ]; then
		awk '{ v[$1] = v[$1] " " $2 }
			function med(s,   n, a, i, j, t) { n = split(s, a, " ");
				for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
				return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
			END { printf "  ring init+exit (ring_cycle.c, medians of 3): %.1f us plain, %.1f us under uringcheck\n", med(v["plain"]), med(v["check"]) }' "$RAWD/ring_cycle"
	fi
	[ -n "$PROFILE_START" ] && echo "  $PROFILE_START (perf; profile.startup.txt)"
	[ -n "$PROFILE" ] && echo "  $PROFILE (perf cpu-clock; full list: profile.txt)"
	echo
	cat "$PC_OUT"
	echo
	cat "$TC_OUT"
	if [ ${#FAILS[@]} -gt 0 ]; then
		echo
		echo "FAILURES"
		printf '  %s\n' "${FAILS[@]}"
	fi
} >"$TABLE"
cat "$TABLE"

# ---- chart -------------------------------------------------------------------
if have gnuplot; then
	gnuplot -e "dat='$CHART_DAT'; datf='$CHART_DAT.f'; out='$OUT/latest.png'; \
		sub='$([ $SMOKE = 1 ] && echo 'SMOKE run, ')$ROUNDS round(s), Linux $(uname -r), $CPU_MODEL, $NCPU cores, $(date -u +%Y-%m-%d)'" \
		"$HERE/chart.gp" 2>"$RAWD/gnuplot.err" && echo "chart: $OUT/latest.png" ||
		{ echo "chart: gnuplot failed:" >&2; cat "$RAWD/gnuplot.err" >&2; }
else
	echo "chart: skipped (gnuplot not installed; Debian: apt-get install gnuplot-nox)"
fi
echo "table: $TABLE  raw: $RAW"

if [ ${#FAILS[@]} -gt 0 ]; then
	echo "run.sh: ${#FAILS[@]} run(s) failed (timings never fail this script)" >&2
	exit 1
fi
exit 0
