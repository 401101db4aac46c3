/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the check mode's rules (in checker/) hand to reports: one struct
 * per hazard kind, filled from the tracker's state, and its builder,
 * report_KIND() (checker/kinds/KIND.c), which turns it into a struct
 * uc_finding (reports/finding.h) and calls report_finding(). reports/
 * never sees these structs: they live here, beside the rules that fill
 * them and the table that names the kinds (kinds.def).
 */
#ifndef UC_KIND_REPORTS_H
#define UC_KIND_REPORTS_H

#include <stdbool.h>
#include <stdint.h>

#include "report.h"
#include "kinds.h"

/* What a report says about one request. */
struct uc_request_desc {
	uint64_t seq;
	uint64_t user_data;
	uint64_t start, end;		/* the range involved */
	uint64_t submit_ts;		/* ns, CLOCK_MONOTONIC */
	uint32_t tgid, tid;
	int ring_fd;			/* -1 if unknown */
	uint16_t buf_index;
	uint8_t opcode;
	uint8_t direction;		/* enum uc_direction */
	bool fixed_buf;
	bool vectored;
	bool sqpoll;			/* submitted by the SQPOLL thread */
	bool sq_unpublished;		/* ... no stack: its ring's publishing
					 * calls seen, none of this one */
	uint32_t nr_ranges;
	uint64_t stack_id;		/* submission stack, 0: none */
	bool provided;			/* a provided buffer the kernel picked */
	uint16_t bgid, bid;		/* ... its group and buffer id */
};

struct uc_overlap_finding {
	uint32_t tgid;
	uint64_t start, end;		/* shared bytes */
	struct uc_request_desc inflight;	/* submitted first */
	struct uc_request_desc incoming;	/* submitted second */
	bool spans_loss;		/* confirmed although events were lost */
	uint64_t key;			/* dedup: kind + call sites, 0: none */
};

/* registered-buffer lifetime: an unregister/update while users are live */
#define UC_MAX_LIVE_SHOWN 8
struct uc_bufreg_finding {
	uint32_t tgid, tid;
	int ring_fd;
	uint32_t reg_opcode;		/* IORING_(UN)REGISTER_* */
	uint32_t index;
	uint64_t reg_start, reg_end;	/* the registered buffer, 0/0 unknown */
	uint64_t call_stack_id;		/* the unregister/update call */
	uint64_t reg_stack_id;		/* where the buffer was registered */
	uint32_t nr_live;
	struct uc_request_desc live[UC_MAX_LIVE_SHOWN];
	bool spans_loss;		/* confirmed although events were lost */
	uint64_t key;			/* dedup: kind + call sites, 0: none */
};

/* munmap/mremap/madvise over bytes an in-flight request holds */
struct uc_unmap_finding {
	uint32_t tgid, tid;
	uint32_t nr;			/* syscall */
	uint64_t call_start, call_end;	/* what the call removed */
	uint64_t start, end;		/* shared with the request */
	uint64_t advice;		/* madvise */
	uint64_t call_stack_id;
	struct uc_request_desc req;	/* range: the whole request range */
	bool spans_loss;		/* confirmed although events were lost */
	uint64_t key;			/* dedup: kind + call sites, 0: none */
};

/* a request submitted with the pointer user_data of one still in flight
 * on the same ring */
struct uc_ud_reuse_finding {
	uint32_t tgid;
	struct uc_request_desc inflight, incoming;
	uint64_t key;
};

/* a provided buffer put back in its ring while a request still held it */
struct uc_pbuf_finding {
	uint32_t tgid;
	uint16_t bgid, bid;
	uint32_t again_pos;		/* the ring position it was found at */
	uint32_t avail;			/* entries available to the kernel then */
	int32_t res;			/* the holder's CQE result */
	struct uc_request_desc holder;
	uint64_t key;
};

/* a plain system call (read, write, ...) storing into or loading from
 * bytes an in-flight request holds */
struct uc_sync_finding {
	uint32_t tgid, tid;
	uint32_t nr;			/* the system call */
	uint8_t dir;			/* UC_DIR_SINK: it stores; SOURCE: loads */
	uint64_t start, end;		/* shared bytes */
	int64_t moved;			/* its result: bytes moved */
	uint64_t call_stack_id;
	struct uc_request_desc req;
	bool spans_loss;
	uint64_t key;
};

/* munmap/mremap/madvise/mmap(MAP_FIXED)/brk over memory that backs a
 * registered buffer, with nothing in flight on that index using it */
struct uc_bufreg_unmap_finding {
	uint32_t tgid, tid;
	uint32_t nr;			/* syscall */
	uint64_t advice;		/* madvise */
	uint64_t call_start, call_end;	/* what the call released */
	int ring_fd;
	uint32_t index;
	uint64_t reg_start, reg_end;	/* the registered buffer */
	uint64_t call_stack_id, reg_stack_id;
	uint64_t key;
};

/* requests left in flight at a teardown, grouped by where they came from */
struct uc_left_group {
	uint8_t opcode;
	int ring_fd;
	uint64_t count;
	uint64_t bytes;			/* user memory they hold, summed */
	uint64_t user_data[4];		/* the first few */
	uint64_t oldest_ts;
	uint64_t stack_id;		/* one of the group's submissions */
};

/* requests that hold no user memory: counted per opcode, not listed */
#define UC_LEFT_NOMEM_OPS 8
struct uc_left_nomem {
	uint8_t opcode;
	uint64_t count;
};

/* an unconsumed CQE, as the program would have read it */
#define UC_LEFT_CQES_SHOWN 4
struct uc_left_cqe {
	uint64_t user_data;
	int32_t res;
	int16_t opcode;			/* of the request that posted it, -1: ? */
};

struct uc_left_finding {
	uint32_t tgid;
	uint32_t reason;		/* enum uc_teardown_reason */
	int32_t detail;			/* exit status, signal */
	int ring_fd;			/* UC_TD_CLOSE */
	uint64_t teardown_ts;
	uint64_t held;			/* requests holding memory (in groups) */
	uint32_t ngroups;
	struct uc_left_group *groups;
	uint64_t nomem;			/* requests holding none */
	uint32_t nnomem_ops;
	struct uc_left_nomem nomem_ops[UC_LEFT_NOMEM_OPS];
	uint64_t unconsumed;		/* CQEs posted, never consumed */
	uint64_t overflowed;		/* ... of which on the overflow list */
	bool overflow_capped;		/* at least that many */
	uint32_t head_past_tail;	/* the program moved its CQ head past
					 * the tail by this much (a bug) */
	uint32_t ncqes;			/* the first unconsumed CQEs */
	struct uc_left_cqe cqes[UC_LEFT_CQES_SHOWN];
	uint64_t teardown_stack_id;	/* the close/exit/exec call, or where
					 * the signal took the process */
	uint64_t key;			/* dedup: kind + call sites, 0: none */
};

/* what the kernel itself threw away on a ring (its io_rings counters) */
struct uc_kernel_drop_finding {
	uint32_t tgid;
	int ring_fd;
	uint32_t sq_dropped;		/* SQEs with an invalid index */
	uint32_t cq_overflow;		/* CQEs that could not be posted */
	uint64_t key;
};

struct uc_reap_lag_finding {
	uint32_t tgid;
	int ring_fd;
	uint64_t user_data;
	uint64_t lag_ns, lag_min_ns, threshold_ns;
	uint32_t pending;
	uint64_t reap_stack_id;		/* uprobe mode: where it was reaped */
	int32_t blocked_nr;		/* the system call a thread sat in while
					 * it waited, -1: none seen */
	uint32_t blocked_tid;
	uint64_t blocked_ns;
	uint64_t key;			/* dedup: kind + call sites, 0: none */
};

/* a glibc malloc chunk given back (free, realloc) over bytes an
 * in-flight request holds (checker/rules/heap_release.c) */
struct uc_free_finding {
	uint32_t tgid, tid;
	uint32_t how;			/* enum uc_heap_how */
	uint64_t chunk, usable;		/* the chunk and its usable bytes */
	bool mmapped;			/* an mmapped chunk (header's flag) */
	uint64_t rel_start, rel_end;	/* the bytes given back */
	uint64_t new_ptr;		/* realloc's result */
	uint64_t start, end;		/* shared with the request */
	uint64_t free_stack_id;		/* the free/realloc call */
	struct uc_request_desc req;	/* range: the request's range piece */
	bool spans_loss;
	uint64_t key;
	/* the chunk's next owner before the request ended
	 * (checker/heap_owner.c) */
	uint32_t owner;			/* enum uc_free_owner */
	uint32_t alloc_fn;		/* enum uc_heap_alloc_fn */
	uint32_t alloc_tid;
	uint64_t alloc_ptr, alloc_usable;
	uint64_t alloc_stack_id;
};

enum uc_free_owner {
	UC_OWNER_NOT_ASKED = 0,		/* no allocation probes: nothing said */
	UC_OWNER_NONE,			/* watched, not handed out again */
	UC_OWNER_FOUND,			/* handed out again: alloc_* */
	UC_OWNER_UNWATCHED,		/* the watch table was full */
};

/* a thread's stack pointer above a stack range one of its in-flight
 * requests holds (checker/rules/stack_frames.c) */
struct uc_stack_finding {
	uint32_t tgid, tid;
	uint64_t sp;			/* the thread's stack pointer then */
	uint64_t lo, hi;		/* its own stack mapping */
	uint32_t where;			/* enum uc_frame_where */
	int32_t nr;			/* the system call or the signal */
	uint64_t start, end;		/* the request's bytes below sp's red zone */
	uint64_t seen_stack_id;		/* where the thread was */
	struct uc_request_desc req;
	bool spans_loss;
	uint64_t key;
};

/* The builders, one per kind (checker/kinds/KIND.c). */
void report_overlap(struct uc_report *rep, const struct uc_overlap_finding *f);
void report_bufreg(struct uc_report *rep, const struct uc_bufreg_finding *f);
void report_unmap(struct uc_report *rep, const struct uc_unmap_finding *f);
void report_free_inflight(struct uc_report *rep, const struct uc_free_finding *f);
void report_stack_inflight(struct uc_report *rep, const struct uc_stack_finding *f);
void report_bufreg_unmapped(struct uc_report *rep, const struct uc_bufreg_unmap_finding *f);
void report_sync_overlap(struct uc_report *rep, const struct uc_sync_finding *f);
void report_user_data_reuse(struct uc_report *rep, const struct uc_ud_reuse_finding *f);
void report_pbuf_reprovided(struct uc_report *rep, const struct uc_pbuf_finding *f);
void report_left_in_flight(struct uc_report *rep, const struct uc_left_finding *f);
void report_kernel_drop(struct uc_report *rep, const struct uc_kernel_drop_finding *f);
void report_reap_lag(struct uc_report *rep, const struct uc_reap_lag_finding *f);

#endif
