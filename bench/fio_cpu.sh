#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# One fio run of the per-request cost rows (k) and (l), under whatever
# command words come first:
#
#   bench/fio_cpu.sh RFILE SECONDS [PREFIX...]
#
# 4 KiB random reads of a page-cached file at iodepth 32, submitted and
# reaped in batches of 32. Prints "CPU_NS_PER_IO IOS": the job's own CPU
# time (user + system; BPF programs run on its behalf) per I/O, and the
# I/Os done; nothing if fio failed.
set -u -o pipefail
RFILE=$1 SECONDS_=$2
shift 2
"$@" fio --name=uc --ioengine=io_uring --filename="$RFILE" --rw=randread \
	--bs=4k --invalidate=0 --norandommap --iodepth=32 --iodepth_batch_submit=32 \
	--iodepth_batch_complete_min=32 --time_based --runtime="$SECONDS_" \
	--output-format=json 2>/dev/null |
	python3 -c 'import json, sys
j = json.load(sys.stdin)["jobs"][0]
ios = j["read"]["total_ios"]
if ios:
    print("%.1f %d" % ((j["usr_cpu"] + j["sys_cpu"]) / 100 * j["job_runtime"] * 1e6 / ios, ios))' 2>/dev/null
