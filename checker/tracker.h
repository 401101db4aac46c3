/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space model of the target's io_uring state, rebuilt from the BPF
 * event stream: processes (address spaces), their rings, and every
 * request that holds user memory while in flight.
 *
 * Events arrive in one ring buffer in the order the kernel produced them,
 * so the model sees submissions and completions in kernel order and can
 * judge each new request against exactly the requests in flight then.
 */
#ifndef UC_TRACKER_H
#define UC_TRACKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evidence.h"
#include "interval_tree.h"
#include "stacks.h"
#include "u64map.h"
#include <linux/types.h>
#include "uringcheck.h"

struct uc_report;

/* One process image: rings and in-flight ranges are per address space. */
struct uc_aspace {
	uint32_t tgid;
	uint32_t generation;		/* bumped by exec */
	struct itree ranges;		/* in-flight ranges of this image */
	size_t inflight;		/* requests in flight with ranges */
};

/* A registered buffer slot (from the iovecs passed at registration). */
struct uc_regbuf {
	uint64_t addr, len;		/* len 0: empty (sparse) slot */
	bool released;			/* its memory was released (told once) */
};

struct uc_ring {
	uint64_t ctx;
	uint32_t tgid;			/* creator */
	int fd;				/* -1: created before we looked */
	uint32_t setup_flags;
	uint64_t drain_epoch;		/* drain barriers seen so far */
	struct uc_regbuf *bufs;		/* registered buffer table */
	uint32_t nbufs;
	uint64_t reg_stack_id;		/* the registration call's stack */
	/* teardown.c: what earlier teardowns of this ring told already */
	uint32_t sq_dropped_told, cq_overflow_told;
	uint32_t cq_mark;		/* CQ positions before it were told */
	bool cq_mark_set;
	/* provided_buffers.c: the legacy groups' buffers, from the
	 * PROVIDE_BUFFERS records; key group << 16 | buffer id */
	struct u64map legacy_bufs;
	bool legacy_init;
};

struct uc_request {
	struct uc_submit sub;		/* as submitted (inline ranges) */
	struct uc_range *ranges;	/* all ranges: sub.nr_ranges */
	struct itree_node *nodes;	/* one per non-empty range */
	uint32_t nr_nodes;
	struct uc_aspace *as;
	struct uc_ring *ring;
	uint64_t drain_epoch;
	uint64_t loss_mark, doubt_mark;	/* evidence.c, at its submission */
	bool counted;			/* in as->inflight */
	uint64_t channel;		/* the pipe/socket end it waits on, 0:
					 * none seen (bpf/channels.bpf.h) */
	/* A buffer-select request: the provided buffer it is known to hold
	 * now (provided_buffers.c), in the address space's set. */
	struct itree_node pick_node;
	bool pick_held;
	uint16_t pick_bid;
	uint64_t pick_loss_mark;	/* events lost when it was attached */
};

struct uc_tracker {
	struct u64map aspaces;		/* tgid -> current uc_aspace */
	struct u64map rings;		/* ctx -> uc_ring */
	struct u64map requests;		/* seq -> uc_request */
	struct u64map by_req;		/* io_kiocb address -> seq */
	struct u64map pending_ranges;	/* seq -> continuation ranges */
	struct u64map calls;		/* tid -> system call in progress */
	struct u64map teardowns;	/* teardown id -> records so far */
	struct u64map pending_execs;	/* tgid -> left-in-flight finding of
					 * an exec not known to succeed yet */
	struct u64map by_user_data;	/* (ring, user_data) -> latest request
					 * in flight with it (user_data_rule.c) */
	struct uc_report *report;
	struct uc_stacks stacks;
	uint64_t reap_lag_ns;		/* threshold, for the report */
	struct uc_evidence ev;		/* the kernel's truth, when lossy */

	/* anomalies, printed at exit when non-zero */
	uint64_t events;
	uint64_t requests_seen;
	uint64_t ranges_missing;	/* continuation records lost */
	uint64_t malformed;
	uint64_t missed_ends;		/* request reused before its end */
	uint64_t rings_unreadable;	/* teardowns whose ring counters were
					 * implausible (dropped not judged) */
	uint64_t picks;			/* provided buffers seen held */
	uint64_t picks_unresolved;	/* ... whose address was not known */
};

void tracker_init(struct uc_tracker *t, struct uc_report *report);
void tracker_free(struct uc_tracker *t);
/* Consumes one ring-buffer record. */
void tracker_event(struct uc_tracker *t, const void *data, size_t size);

/* Forget a request that left flight (evidence.c: its end was lost). */
void tracker_drop_request(struct uc_tracker *t, struct uc_request *r);

/* Shared with calls.c and teardown.c */
struct uc_ring *tracker_ring(struct uc_tracker *t, uint64_t ctx, uint32_t tgid);
/* Continuation ranges sent for @seq (NULL if none); caller frees. */
struct uc_range *tracker_take_ranges(struct uc_tracker *t, uint64_t seq,
				     uint32_t *nr);

/* calls.c: munmap-inflight and bufreg-lifetime */
void calls_on_call(struct uc_tracker *t, const struct uc_call *c);
void calls_on_ret(struct uc_tracker *t, const struct uc_call_ret *r);
void calls_on_register(struct uc_tracker *t, const struct uc_register *r);
void calls_free(struct uc_tracker *t);

/* teardown.c: left-in-flight and dropped */
void teardown_on_dropped(struct uc_tracker *t, const struct uc_dropped *d);
void teardown_on_unreaped(struct uc_tracker *t, const struct uc_unreaped *u);
void teardown_on_teardown(struct uc_tracker *t, const struct uc_teardown *td);
/* The exec whose teardown was sent returned (failed) or replaced the image. */
void teardown_exec_result(struct uc_tracker *t, uint32_t tgid, bool succeeded);
void teardown_free(struct uc_tracker *t);

/* Overlap rule (overlap_rule.c): called for each new request with ranges
 * before its ranges join the address space's set; _range for one range
 * @r comes to hold (a provided buffer). */
void overlap_check(struct uc_tracker *t, struct uc_request *r);
void overlap_check_range(struct uc_tracker *t, struct uc_request *r,
			 uint64_t start, uint64_t end);

/* Provided buffers (provided_buffers.c): pbuf-reprovided, and the buffer a
 * buffer-select request holds, judged by the overlap and sync rules. */
void pbuf_on_provide(struct uc_tracker *t, const struct uc_provide *p);
void pbuf_on_pick(struct uc_tracker *t, const struct uc_pick *p);
void pbuf_release(struct uc_tracker *t, struct uc_request *r);
bool pbuf_node_doubtful(const struct uc_tracker *t, const struct itree_node *n);
void pbuf_ring_free(struct uc_ring *ring);
bool requests_ordered(const struct uc_request *earlier,
		      const struct uc_request *later);

/* user-data-reuse (user_data_rule.c): at each new request with ranges,
 * and when a request leaves flight. */
void user_data_check(struct uc_tracker *t, struct uc_request *r);
void user_data_forget(struct uc_tracker *t, const struct uc_request *r);
void user_data_free(void);

#endif
