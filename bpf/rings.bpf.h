/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rings of followed processes, by struct io_ring_ctx address: what
 * each ring's requests, reap lag and watched provided buffers need kept.
 */
#ifndef __RINGS_BPF_H
#define __RINGS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define POST_TS_SLOTS	64		/* CQ positions whose post time is kept */

/* A buffer-select request in flight on a ring, looked at for a held
 * provided buffer (bpf/provided_buffers.bpf.h). */
#define PBUF_WATCH	4
struct pbuf_watch {
	__u64 req;			/* 0: free */
	__u64 seq;
	__u64 seq_sent_held;		/* its held buffer was sent ... */
	__u64 addr_sent;		/* ... at this address */
	__u16 bgid;
	__u16 bid_sent;			/* ... under this buffer id */
	__u16 pad[2];
};

struct ring_info {
	__u32 tgid;			/* process that created it */
	__u32 session;			/* ... and its session */
	__u32 lag_active;		/* the CQE at lag_pos is late */
	__u32 slot1;			/* its ring_slots index + 1, 0: none */
	__s64 quiet_inflight;		/* requests that may end without CQE */
	__s64 inflight;			/* requests in flight (INF_COUNTED) */
	__s64 mem_inflight;		/* ... of them holding user memory: the
					 * only partners of a sync call
					 * (bpf/sync_calls.bpf.h) */
	__u64 mem_lo, mem_hi;		/* ... the span of their ranges, at
					 * least (bpf/heap_bounds.bpf.h) */
	__u64 sink_lo, sink_hi;		/* ... of those that store (reads):
					 * a sync call's only partners */
	__u64 freed;			/* ends since the free stack was read */
	__u64 ovf_cursor;		/* last request seen ending in a flush */
	__u64 ovf_batch;		/* ... the batch it was in (its head) */
	__u64 ovf_unmatched;		/* overflows not matched at once */
	/* reap lag: when the CQE at each recent CQ position was posted */
	__u64 post_ts[POST_TS_SLOTS];
	__u32 post_pos[POST_TS_SLOTS];
	__u8 post_op[POST_TS_SLOTS];	/* opcode + 1 of its request, 0: ? */
	__u32 lag_pos;
	__u32 lag_pending;
	__u64 lag_post;
	__u64 lag_seen;			/* last time seen still unconsumed */
	__u64 lag_user_data;
	/* the longest other system call a thread of the process spent
	 * while the late CQE waited (bpf/syscalls.bpf.h, blocking_ends) */
	__u64 lag_block_ns;
	__u32 lag_block_nr;
	__u32 lag_block_tid;
	/* liburing uprobe mode: the lag clock when a sample first saw the
	 * late CQE consumed, waiting for the program's next call into
	 * liburing to say where it came back (0: not); and whether its
	 * calls are watched at all (bpf/reap_lag.bpf.h, lag_consumed) */
	__u64 lag_gone;
	__u32 lag_calls;
	__u32 lag_pad;
	/* buffer-select requests watched for held buffers (more than
	 * PBUF_WATCH at once: the rest are judged at their CQEs only) */
	__u32 pbuf_watched;
	__u32 pbuf_pad;
	struct pbuf_watch pbuf_watch[PBUF_WATCH];
	/* SQEs the kernel itself discarded, seen rising inside its own
	 * io_uring_enter calls (bpf/sq_drops.bpf.h), and the counter's
	 * value at the last such rise */
	__u32 sq_dropped_kernel;
	__u32 sq_dropped_mark;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);		/* struct io_ring_ctx * */
	__type(value, struct ring_info);
} rings SEC(".maps");

#endif /* __RINGS_BPF_H */
