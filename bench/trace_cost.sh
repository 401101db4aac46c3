#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The trace's cost beside the checker's (called by bench/run.sh):
#
#   bench/trace_cost.sh UC RFILE ROUNDS FIO_SECONDS OUTDIR
#
# fio 4 KiB random reads of a page-cached file at iodepth 32 (batches of
# 32), interleaved in every round:
#   plain           nothing attached
#   check           uringcheck (--keep-warm=0)
#   check+trace     uringcheck --trace=FILE
#   profile+trace   uringcheck --profile --trace=FILE
# Prints the median CPU ns per I/O and what each adds to plain, the
# trace's added cost as a multiple of the checker's, the records lost at
# the default buffer, and the file's bytes per request. Then the bytes per
# request of the trace alone (--profile --trace) on the workloads of issue
# #31: these batched reads, the same reads submitted one per
# io_uring_enter, and node's libuv (UV_USE_IO_URING=1, an SQPOLL ring)
# reading the file, when node is installed.
set -u -o pipefail
export LC_ALL=C
UC=$1 RFILE=$2 ROUNDS=$3 FIO_RT=$4 OUT=$5
HERE=$(cd "$(dirname "$0")" && pwd)
MODES=(plain check check+trace profile+trace)
mkdir -p "$OUT" || exit 1
RAW=$OUT/trace_cost.raw
: >"$RAW"

run() {				# MODE ROUND: prints "cpu_ns ios lost bytes"
	local m=$1 r=$2 pre=() tf=$OUT/trace.$r.pftrace log=$OUT/trace.$1.$2.log
	case $m in
	check) pre=("$UC" --keep-warm=0 --log-file="$log") ;;
	check+trace) pre=("$UC" --keep-warm=0 --log-file="$log" --trace="$tf") ;;
	profile+trace) pre=("$UC" --profile --log-file="$log" --trace="$tf") ;;
	esac
	rm -f "$tf"
	"$HERE/fio_cpu.sh" "$RFILE" "$FIO_RT" "${pre[@]}" |
		{ read -r ns ios || exit 0
		  lost=$(sed -n 's/.*trace: \([0-9]*\) records lost.*/\1/p' "$log" 2>/dev/null | head -1)
		  reqs=$(sed -n 's/.*trace: \([0-9]*\) requests,.*/\1/p' "$log" 2>/dev/null | head -1)
		  bytes=$([ -f "$tf" ] && stat -c %s "$tf" || echo 0)
		  echo "$m $ns $ios ${lost:-0} $bytes ${reqs:-0}"; }
	rm -f "$tf" "$log"
}

# size WORKLOAD: "bytes per request" of --profile --trace on it, as the
# closing line says, or "-" when the workload cannot run here
size() {
	local w=$1 tf=$OUT/trace.size.pftrace log=$OUT/trace.size.log cmd
	case $w in
	unbatched) cmd=(fio --name=uc --ioengine=io_uring --filename="$RFILE" --rw=randread
			--bs=4k --invalidate=0 --norandommap --iodepth=32 --iodepth_batch_submit=1
			--time_based --runtime="$FIO_RT" --output=/dev/null) ;;
	node)	command -v node >/dev/null || { echo -; return; }
		cmd=(env UV_USE_IO_URING=1 node -e '
const fs = require("fs"), fd = fs.openSync(process.argv[1], "r");
const pages = fs.fstatSync(fd).size / 4096, n = 20000;
let done = 0, busy = 0;
(function go() {
	for (; busy < 32 && done + busy < n; busy++)
		fs.read(fd, Buffer.alloc(4096), 0, 4096, Math.floor(Math.random() * pages) * 4096,
			() => { busy--; done++; go(); });
})();' "$RFILE") ;;
	esac
	rm -f "$tf"
	"$UC" --profile --log-file="$log" --trace="$tf" "${cmd[@]}" >/dev/null 2>&1
	sed -n 's/.*trace: .*, \([0-9]*\) bytes per request).*/\1/p' "$log" 2>/dev/null |
		grep . || echo -
	rm -f "$tf" "$log"
}

for ((r = 0; r < ROUNDS; r++)); do
	for ((i = 0; i < ${#MODES[@]}; i++)); do
		run "${MODES[$(((i + r) % ${#MODES[@]}))]}" "$r" >>"$RAW"
	done
done

SIZES="$(size unbatched) $(size node)"

awk -v rounds="$ROUNDS" -v sizes="$SIZES" '
	{ v[$1] = v[$1] " " $2; lost[$1] += $4; bytes[$1] += $5; reqs[$1] += $6 }
	function med(s,   n, a, i, j, t) { n = split(s, a, " "); if (!n) return -1
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	END {
		printf "(l) trace mode, fio randread 4k qd32 batch 32: CPU ns per I/O (medians of %d interleaved rounds)\n", rounds
		p = med(v["plain"]); c = med(v["check"])
		if (p < 0 || c < 0) { print "  no data"; exit }
		printf "  plain %.0f; check %.0f (+%.0f)\n", p, c, c - p
		split("check+trace profile+trace", m, " ")
		for (k = 1; k <= 2; k++) {
			x = med(v[m[k]]); if (x < 0) continue
			printf "  %-14s %.0f (+%.0f, %.2fx the check mode'"'"'s added cost); records lost %d; %.0f bytes per request\n",
				m[k], x, x - p, (c - p > 0 ? (x - p) / (c - p) : 0), lost[m[k]],
				(reqs[m[k]] ? bytes[m[k]] / reqs[m[k]] : 0)
		}
		split(sizes, z, " ")
		printf "  trace bytes per request (--profile --trace): fio batched %.0f, fio one SQE per enter %s, node (libuv, SQPOLL) %s\n",
			(reqs["profile+trace"] ? bytes["profile+trace"] / reqs["profile+trace"] : 0), z[1], z[2]
		printf "  targets: 0 records lost at the default buffer; check+trace within 2x the check mode; 100 bytes per request (docs/trace.md)\n"
	}' "$RAW"
