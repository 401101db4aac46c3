/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The profile mode's tables, shared by its BPF programs (bpf/profile.bpf.c)
 * and user space (profile/). Plain __u* structs: the layout is the ABI.
 *
 * Everything is aggregated in the kernel: user space only reads these
 * tables (at exit, at each -i interval, on a /metrics scrape). Nothing
 * per request crosses to user space.
 */
#ifndef UC_PROFILE_H
#define UC_PROFILE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* IORING_OP_* below this index have a row of their own; later ones (none
 * through 6.18, whose last is 61) share the last row. */
#define PF_MAX_OPS		64
/* log2 latency buckets: bucket b counts [2^b, 2^(b+1)) ns; the last one
 * everything from 2^31 ns (2.1 s) up. */
#define PF_LAT_BUCKETS		32
/* log2 buckets of io_uring_cqring_wait's min_events (1, 2-3, 4-7, ...) */
#define PF_WAIT_BUCKETS		12
/* IORING_REGISTER_* opcodes counted one by one (6.18's last is 35) */
#define PF_REG_OPS		40
/* request slots, direct-mapped by request address: a power of two */
#define PF_REQ_SLOTS		65536
/* the ring-address cache in front of the ring table: a power of two */
#define PF_RING_CACHE		1024
#define PF_SETUP_SQPOLL		(1u << 1)	/* uapi IORING_SETUP_SQPOLL */
#define PF_NO_RING		0xffff	/* not a followed process's ring */
#define PF_RING_FULL		0xfffe	/* one, beyond the table */

/* per ring slot x opcode, per CPU */
struct pf_op_stats {
	__u64 submits;
	__u64 completes;		/* requests that ended (silent ones too) */
	__u64 errors;			/* ... with res < 0 */
	__u64 bytes;			/* res > 0 of data-moving opcodes */
	__u64 polled;			/* ended after an armed poll */
	__u64 punted;			/* ended after a trip through io-wq */
	__u64 forced;			/* ... flagged REQ_F_FORCE_ASYNC at submission:
					 * IOSQE_ASYNC, or set by the kernel's prep
					 * for always-blocking opcodes (FSYNC) */
	__u64 short_writes;		/* WRITE/WRITE_FIXED/SEND: 0 <= res < len */
	__u64 unseen;			/* ended, submitted before the profile */
	__u64 silent;			/* ended without a CQE (IOSQE_CQE_SKIP_SUCCESS),
					 * found at a later chain member's end or the
					 * request object's reuse: untimed, bytes counted
					 * only at a chain member's end */
	__u64 lat_sum_ns;
	__u64 lat_max_ns;
	__u64 lat_hist[PF_LAT_BUCKETS];
};

/* per ring slot, per CPU */
struct pf_ring_stats {
	__u64 enters;			/* io_uring_enter calls on this ring */
	__u64 enters_submitting;	/* ... with to_submit > 0 */
	__u64 enter_sqes;		/* SQEs those calls asked to submit */
	__u64 enters_waiting;		/* ... with IORING_ENTER_GETEVENTS */
	__u64 sq_wakeups;		/* ... with IORING_ENTER_SQ_WAKEUP */
	__u64 cq_overflows;		/* CQEs sent to the overflow list */
	__u64 aux_cqes;			/* CQEs of no request's end (multishot) */
	__u64 cqring_waits;		/* waits for min_events completions */
	__u64 wait_hist[PF_WAIT_BUCKETS];
	__u64 evicted;			/* request slots taken before their end */
	__u64 register_calls;
	__u64 register_errors;
	__u64 register_ns;
	__u64 reg_count[PF_REG_OPS];
	__u64 reg_ns[PF_REG_OPS];
};

/* what is known of a ring: pf_ring_meta[slot] (written once) */
struct pf_ring_meta {
	__u64 ctx;			/* struct io_ring_ctx *, 0: slot unused */
	__u32 tgid;			/* the process that created or first used it */
	__s32 fd;			/* -1: not seen created (attached later) */
	__u32 setup_flags;		/* IORING_SETUP_* */
	__u32 sq_entries, cq_entries;
	__u32 serial;			/* the ring's number in the run, from 1: a
					 * slot is reused once its ring is gone */
	__u64 created_ns;		/* 0: existed before the profile began */
	char comm[16];			/* of the process that created or used it */
	__u64 closed_ns;		/* 0: open; else its context was freed (the
					 * slot waits for user space to collect it) */
};

/* pf_notify records: a ring's slot to collect, or a ring left out */
#define PF_NOTE_CLOSED		1	/* @slot's ring is gone */
#define PF_NOTE_UNPROFILED	2	/* a ring found the table full */
struct pf_note {
	__u32 kind;
	__u32 slot;
};

/* per process (tgid), shared by its threads */
struct pf_proc {
	__u64 sqpoll_oncpu_ns;		/* time its SQPOLL threads spent on a CPU */
	__u64 sqpoll_switches;		/* ... and how often they were switched in */
	__u64 worker_oncpu_ns;		/* its io-wq workers */
	__u32 workers;			/* distinct io-wq workers seen */
	__u32 sqpoll_threads;
	__u64 setups;			/* io_uring_setup calls */
};

/* one io-wq or SQPOLL thread seen running (pf_threads, by tid) */
struct pf_thread {
	__u32 tgid;
	__u8 sqpoll;			/* iou-sqp-*, else an io-wq worker */
	__u8 pad[3];
	__u64 on_since;			/* switched in at, 0: off CPU */
	__u64 oncpu_ns;
};

/* errors by errno: pf_errors[{ring, opcode, errno}] = count */
struct pf_err_key {
	__u16 ring;
	__u8 opcode;
	__u8 pad;
	__s32 err;			/* positive errno */
};

/* run-level counters, pf_stats[i] (per CPU) */
enum pf_stat {
	PF_STAT_RINGS_UNPROFILED,	/* rings beyond --profile-rings */
	PF_STAT_REQS_UNPROFILED,	/* their requests */
	PF_STAT_THREADS_FULL,		/* io-wq/SQPOLL threads not recorded */
	PF_STAT_PROCS_FULL,		/* processes not followed */
	PF_STAT_ERRNO_FULL,		/* errors not broken down by errno */
	PF_STAT__COUNT,
};

#endif
