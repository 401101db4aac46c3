/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The check mode's model of the target's io_uring state, rebuilt from the
 * BPF event stream: processes (address spaces), their rings, and every
 * request that holds user memory while in flight, with its ranges in the
 * address space's interval tree.
 *
 * The model judges nothing and knows no rule. The dispatcher (dispatch.c)
 * feeds it the records in kernel order and runs the rules (rules/) around
 * each change; the one change that happens from several places, a
 * request leaving flight, is told through the end hook given to
 * tracker_init().
 */
#ifndef UC_TRACKER_H
#define UC_TRACKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "freelist.h"
#include "interval_tree.h"
#include "stacks.h"
#include "u64map.h"
#include <linux/types.h>
#include "uringcheck.h"

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
	/* The legacy groups' buffers, from the PROVIDE_BUFFERS records;
	 * key group << 16 | buffer id (tracker_legacy_buf()). */
	struct u64map legacy_bufs;
	bool legacy_init;
};

struct uc_request {
	struct uc_submit sub;		/* as submitted (inline ranges) */
	struct uc_range *ranges;	/* all ranges: sub.nr_ranges */
	struct itree_node *nodes;	/* one per non-empty range */
	uint32_t nr_nodes;
	struct itree_node node_one;	/* the nodes of a request of one range */
	struct uc_aspace *as;
	struct uc_ring *ring;
	uint64_t drain_epoch;
	uint64_t loss_mark, doubt_mark;	/* evidence.c, at its submission */
	bool counted;			/* in as->inflight */
	bool frame_told;		/* stack-inflight reported it */
	uint64_t channel;		/* the pipe/socket end it waits on, 0:
					 * none seen (bpf/channels.bpf.h) */
	/* A buffer-select request: the provided buffer it is known to hold
	 * now (tracker_hold()), in the address space's set. */
	struct itree_node pick_node;
	bool pick_held;
	uint16_t pick_bid;
	uint64_t pick_loss_mark;	/* evidence.c: events lost when it was
					 * attached */
};

struct uc_tracker {
	struct u64map aspaces;		/* tgid -> current uc_aspace */
	struct u64map rings;		/* ctx -> uc_ring */
	struct u64map requests;		/* seq -> uc_request */
	struct u64map by_req;		/* io_kiocb address -> seq */
	struct u64map pending_ranges;	/* seq -> continuation ranges */
	struct uc_stacks *stacks;	/* requests and rings hold stacks */
	struct freelist spare_requests;	/* lib/freelist.h */
	/* A request leaves flight (its end, a reuse, its process's exit, or
	 * an end the evidence recovered): called before it is forgotten. */
	void (*on_end)(void *arg, const struct uc_request *r);
	void *end_arg;

	/* anomalies, printed at exit when non-zero */
	uint64_t requests_seen;
	uint64_t ranges_missing;	/* continuation records lost */
	uint64_t missed_ends;		/* request reused before its end */
};

void tracker_init(struct uc_tracker *t, struct uc_stacks *stacks,
		  void (*on_end)(void *arg, const struct uc_request *r), void *end_arg);
void tracker_free(struct uc_tracker *t);

static inline struct uc_request *tracker_request(struct uc_tracker *t, uint64_t seq)
{
	return u64map_get(&t->requests, seq);
}

/* The ring at @ctx, made if unknown (created before we looked). */
struct uc_ring *tracker_ring(struct uc_tracker *t, uint64_t ctx, uint32_t tgid);

/*
 * A submission, in three steps so that the rules judge the new request
 * against exactly the requests in flight before it:
 *  - tracker_submit(): the request as sent, its ranges assembled; a
 *    request still held at its io_kiocb lost its end and is forgotten.
 *    NULL: nothing to remember (a drain barrier).
 *  - tracker_admit(): it is in flight (its ranges not in the set yet);
 *  - tracker_insert_ranges(): its ranges join its address space's set.
 */
struct uc_request *tracker_submit(struct uc_tracker *t, const struct uc_submit *s);
void tracker_admit(struct uc_tracker *t, struct uc_request *r);
void tracker_insert_ranges(struct uc_tracker *t, struct uc_request *r);

/* A continuation record of ranges for a submission or a call. */
void tracker_add_ranges(struct uc_tracker *t, const struct uc_ranges *c);
/* Continuation ranges sent for @seq (NULL if none); caller frees. */
struct uc_range *tracker_take_ranges(struct uc_tracker *t, uint64_t seq,
				     uint32_t *nr);

/* Forget a request that left flight (the end hook runs first). */
void tracker_drop_request(struct uc_tracker *t, struct uc_request *r);
void tracker_done(struct uc_tracker *t, const struct uc_done *d);
void tracker_ring_create(struct uc_tracker *t, const struct uc_ring_create *c);
/* A new process image for @tgid. */
void tracker_exec(struct uc_tracker *t, uint32_t tgid);
/* The last thread of @tgid exited: its requests left flight. */
void tracker_process_exit(struct uc_tracker *t, uint32_t tgid);
void tracker_channel(struct uc_tracker *t, const struct uc_channel *c);

/* Does the kernel run @later only after @earlier finished? */
bool requests_ordered(const struct uc_request *earlier,
		      const struct uc_request *later);

/* Provided buffers: a legacy group's buffers (PROVIDE_BUFFERS), and the
 * buffer a buffer-select request holds, in its address space's set. */
void tracker_provide(struct uc_tracker *t, const struct uc_provide *p);
bool tracker_legacy_buf(const struct uc_ring *ring, uint16_t bgid, uint16_t bid,
			uint64_t *addr, uint64_t *len);
void tracker_hold(struct uc_tracker *t, struct uc_request *r, uint64_t start, uint64_t end);
void tracker_release(struct uc_tracker *t, struct uc_request *r);
static inline bool tracker_holds(const struct uc_request *r, uint64_t start, uint64_t end)
{
	return r->pick_held && r->pick_node.start == start && r->pick_node.end == end;
}

/* A ring's registered buffer table: slots [first, first + nr) set from
 * @r (empty past @nr_r); all of it emptied; the registration's stack. */
void tracker_bufs_set(struct uc_ring *ring, uint32_t first, uint32_t nr,
		      const struct uc_range *r, uint32_t nr_r);
void tracker_bufs_clear(struct uc_ring *ring);
void tracker_bufs_stack(struct uc_tracker *t, struct uc_ring *ring, uint64_t stack_id);

#endif
