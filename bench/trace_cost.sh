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
# the default buffer, and the file size per million requests.
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

for ((r = 0; r < ROUNDS; r++)); do
	for ((i = 0; i < ${#MODES[@]}; i++)); do
		run "${MODES[$(((i + r) % ${#MODES[@]}))]}" "$r" >>"$RAW"
	done
done

awk -v rounds="$ROUNDS" '
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
			printf "  %-14s %.0f (+%.0f, %.2fx the check mode'"'"'s added cost); records lost %d; %.1f MB per million requests\n",
				m[k], x, x - p, (c - p > 0 ? (x - p) / (c - p) : 0), lost[m[k]],
				(reqs[m[k]] ? bytes[m[k]] / reqs[m[k]] : 0)
		}
		printf "  targets: 0 records lost at the default buffer; check+trace within 2x the check mode (docs/trace.md)\n"
	}' "$RAW"
