#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The profile mode's cost per request, beside the floor (called by
# bench/run.sh; usable alone):
#
#   bench/profile_cost.sh UC FLOOR NOP_BENCH RFILE ROUNDS NOP_N FIO_SECONDS
#
# Five ways to run the same workload, interleaved in every round (the
# order rotates, so a drift of the machine hits each alike):
#   plain          nothing attached
#   floor          bench/floor.bpf.c: empty programs on io_uring_submit_req
#                  and io_uring_complete, what any tool on those hooks pays
#   profile        uringcheck --profile
#   check          uringcheck (the default mode), --keep-warm=0
#   check+profile  uringcheck --profile --check
# Workloads: NOPs in batches of 32 (nop_bench; its CPU time per NOP), and
# fio 4 KiB random reads of a page-cached file at iodepth 32, batches of
# 32 (CPU time of the job per I/O). Prints a table: the median CPU ns per
# request, what each adds to plain, and that as a multiple of the floor's.
set -u -o pipefail
export LC_ALL=C
UC=$1 FLOOR=$2 NOP=$3 RFILE=$4 ROUNDS=$5 NOP_N=$6 FIO_RT=$7
HERE=$(cd "$(dirname "$0")" && pwd)
MODES=(plain floor profile check check+profile)
RAW=$(mktemp)
trap 'rm -f "$RAW"' EXIT
[ -n "${PC_DEBUG:-}" ] && trap 'cat "$RAW" >&2; rm -f "$RAW"' EXIT

prefix() {			# MODE: the command words in front of the workload
	case $1 in
	plain) ;;
	floor) echo "$FLOOR" ;;
	profile) echo "$UC --profile --log-file=/dev/null" ;;
	check) echo "$UC --keep-warm=0 --log-file=/dev/null" ;;
	check+profile) echo "$UC --keep-warm=0 --profile --check --log-file=/dev/null" ;;
	esac
}

nop_ns() {			# MODE
	# shellcheck disable=SC2046
	$(prefix "$1") "$NOP" -n "$NOP_N" 2>/dev/null |
		sed -n 's/.*cpu_ns_per_op=\([0-9.]*\).*/\1/p'
}

fio_ns() {			# MODE: the job's CPU time (user + system) per I/O
	# shellcheck disable=SC2046
	"$HERE/fio_cpu.sh" "$RFILE" "$FIO_RT" $(prefix "$1") | cut -d' ' -f1
}

for ((r = 0; r < ROUNDS; r++)); do
	for ((i = 0; i < ${#MODES[@]}; i++)); do
		m=${MODES[$(((i + r) % ${#MODES[@]}))]}
		v=$(nop_ns "$m"); [ -n "$v" ] && echo "nop $m $v" >>"$RAW"
		v=$(fio_ns "$m"); [ -n "$v" ] && echo "fio $m $v" >>"$RAW"
	done
done

awk -v rounds="$ROUNDS" '
	{ v[$1 " " $2] = v[$1 " " $2] " " $3 }
	function med(s,   n, a, i, j, t) { n = split(s, a, " "); if (!n) return -1
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	END {
		printf "(k) profile mode, CPU ns per request (medians of %d interleaved rounds); +added to plain, x = added / floor added\n", rounds
		printf "  %-28s %8s %16s %22s %22s %22s\n", "workload", "plain", "floor", "profile", "check", "check+profile"
		split("nop fio", w, " ")
		name["nop"] = "NOPs, batches of 32"; name["fio"] = "fio randread 4k qd32, batch 32"
		for (k = 1; k <= 2; k++) {
			p = med(v[w[k] " plain"]); f = med(v[w[k] " floor"])
			if (p < 0 || f < 0) { printf "  %-28s no data\n", name[w[k]]; continue }
			fa = f - p
			printf "  %-28s %8.0f %9.0f (+%4.0f)", name[w[k]], p, f, fa
			split("profile check check+profile", m, " ")
			for (j = 1; j <= 3; j++) {
				x = med(v[w[k] " " m[j]])
				if (x < 0) { printf " %22s", "-"; continue }
				printf " %8.0f (+%4.0f %4.2fx)", x, x - p, (fa > 0 ? (x - p) / fa : 0)
			}
			printf "\n"
		}
		printf "  target: profile at most 1.25x the floor (docs/profile.md); latency sampled 1 in 16 after 1024 per opcode\n"
	}' "$RAW"
