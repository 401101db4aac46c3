/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A request's end, found and told to its session (UC_EV_DONE): at its CQE,
 * or, for one that ends without a CQE of its own, as below.
 *
 * A request that ends without a CQE of its own fires no per-request
 * event: IOSQE_CQE_SKIP_SUCCESS, or a CQE that went to the overflow list.
 * Their ends are found at a bounded cost per event (docs/design.md):
 *  - an overflowed CQE belongs to the next request of the completion
 *    batch being flushed after the last one seen posting: a cursor per
 *    ring follows the batch, one step per CQE;
 *  - a request ends only after the member before it in its link chain,
 *    so a chain member's end ends its predecessors;
 *  - a finished request is pushed on its ring's free-request stack, so
 *    before a submission on a ring with CQE-skipping requests in flight
 *    the top of that stack is read, as deep as the requests freed since
 *    the last look (counted at each completion);
 *    (and, before v6.4, the locked free list, where requests io-wq
 *    finished wait);
 *  - at a teardown, the whole stack (and the locked list);
 *  - a request slot reused by a new submission ends the old one.
 */
#ifndef __REQUEST_ENDS_BPF_H
#define __REQUEST_ENDS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "uringcheck.h"
#include "io_uring_access.bpf.h"
#include "session.bpf.h"
#include "events.bpf.h"
#include "losses.bpf.h"
#include "rings.bpf.h"
#include "ring_index.bpf.h"
#include "inflight.bpf.h"
#include "provided_buffers.bpf.h"
#include "stack_frames.bpf.h"

/* Set by user space before load. */
const volatile __u64 reissue_flag = 0;	/* REQ_F_REISSUE from kernel BTF */

/* CQE-skipping requests in flight, and overflowed CQEs not matched to
 * their request, on any ring: the system calls that judge in-flight
 * memory (munmap, ...) look for their ends first. */
__s64 quiet_total;
__s64 unmatched_total;

/* A ring's unmatched overflows were looked for (on its free stack). */
static __always_inline void unmatched_done(struct ring_info *ri)
{
	if (ri->ovf_unmatched) {
		__sync_fetch_and_add(&unmatched_total, -(__s64)ri->ovf_unmatched);
		ri->ovf_unmatched = 0;
	}
}

static __always_inline void ring_add(__u64 ring, __u32 flags)
{
	struct ring_info *ri;

	/* Counted only where the ring was known at submission. */
	if (!(flags & INF_COUNTED))
		return;
	ri = bpf_map_lookup_elem(&rings, &ring);
	if (!ri)
		return;
	if (flags & INF_QUIET) {
		__sync_fetch_and_add(&ri->quiet_inflight, -1);
		__sync_fetch_and_add(&quiet_total, -1);
	}
	__sync_fetch_and_add(&ri->inflight, -1);
	if (flags & INF_HOLDS_MEM)
		__sync_fetch_and_add(&ri->mem_inflight, -1);
}

/*
 * Frees @slot if it still holds @key and tells the request's session it
 * ended; *@copy gets the entry. False if someone else ended it first.
 */
static __always_inline bool end_slot(int slot, __u64 key, __s32 res, __u32 cflags,
				     __u32 how, struct inflight_val *copy)
{
	struct inflight_val *v = inf_val(slot);
	struct uc_done *e;
	void *rb;
	__u64 pos;

	if (!v)
		return false;
	*copy = *v;
	/* Only the caller whose release succeeds reports the end. */
	if (!inf_release(slot, key))
		return false;
	if (copy->flags & INF_BSEL)
		pbuf_forget(copy->ctx, copy->user_data, key);
	if (copy->flags & INF_STACK)
		stack_request_ended(copy);
	/* Its session has changed hands since (the request outlived the
	 * instance that saw it submitted): the new owner never heard of it. */
	if (!session_owned_by(copy->session, copy->owner))
		return true;
	stat_inc(copy->session, UC_STAT_DONES);
	/* A CQE's end is counted down by uc_complete, which has the ring
	 * already: a ring lookup per completion was a measurable cost. */
	if (how != UC_DONE_CQE)
		ring_add(copy->ctx, copy->flags);
	if (!(copy->flags & INF_REPORTED))
		return true;
	rb = session_rb(copy->session);
	if (!rb)
		return true;
	/* Where the buffer stands before the record is tried: if it does not
	 * fit, the end is kept in lost_ends at this position. */
	pos = bpf_ringbuf_query(rb, BPF_RB_PROD_POS);
	e = bpf_ringbuf_reserve(rb, sizeof(*e), 0);
	if (!e) {
		note_lost_end(copy->session, copy->seq, pos);
		return true;
	}
	/* Nothing is timed from an end, and a clock read is a measurable
	 * share of this path: ends are not stamped (hdr.ts 0). */
	fill_hdr_at(&e->hdr, UC_EV_DONE, 0, 0);
	e->seq = copy->seq;
	e->ctx = copy->ctx;
	e->res = res;
	e->cflags = cflags;
	e->how = (copy->flags & INF_NOTIF) ? UC_DONE_NOTIF : how;
	e->pad = 0;
	ev_submit(copy->session, e);
	return true;
}

/*
 * The submission record of request @seq was lost: user space never knew
 * it, so its end is not worth sending, nor keeping when that is lost too.
 * (The request is not issued before its submission hook returns, so it
 * cannot have ended meanwhile.) Only on the loss path.
 */
static __noinline void unreport(__u64 key, __u64 seq)
{
	int slot = inf_find(key);
	struct inflight_val *v = slot >= 0 ? inf_val(slot) : NULL;

	if (v && v->seq == seq)
		v->flags &= ~INF_REPORTED;
}

__noinline int end_one(int slot, __u64 req, __u64 res_cflags, __u32 how,
		       struct inflight_val *copy);

struct chain_walk {
	__u32 slot;			/* predecessor's slot + 1, 0: none */
	__u32 ended;			/* members ended by this walk */
	__u64 seq;			/* ... and its seq */
};

/* A link chain has at most as many members as one submission can carry:
 * the kernel ends an unterminated chain with the call that built it, and
 * a ring has at most 32768 SQ entries (IORING_MAX_ENTRIES). A walk stops
 * at the first member already ended, and every step ends a request that
 * was submitted, so the cost stays one step per request. (A bound of 64
 * left the 65th and earlier members of a longer chain to the free-stack
 * walk, whose depth did not count them: false overlaps, issue #30.) */
#define CHAIN_MAX 32768

static long chain_step(__u64 i, struct chain_walk *w)
{
	struct inflight_val copy;
	__u32 idx = w->slot - 1;
	__u64 *k;

	if (!w->slot)
		return 1;
	k = inf_key(idx);
	w->slot = 0;
	if (!k || *k <= INF_BUSY) {
		return 1;
	} else {
		struct inflight_val *v = inf_val(idx);

		/* Ended already, and the slot taken by another request. */
		if (!v || v->seq != w->seq)
			return 1;
	}
	if (!end_one(idx, *k, 0, UC_DONE_CHAIN, &copy))
		return 1;
	w->ended++;
	w->slot = copy.prev_slot;
	w->seq = copy.prev_seq;
	return 0;
}

/* A chain member ended: the members before it (still in our table only
 * because they posted no CQE) ended before it. They were freed onto the
 * ring's free stack too: counted in its ring's ends since the stack was
 * last read (the depth collect_quiet_ends reads), else the ones ended
 * here would hide older ones below the depth read. Global: verified once. */
__noinline int end_chain(__u32 prev_slot, __u64 prev_seq, __u64 ring)
{
	struct chain_walk w = { .slot = prev_slot, .seq = prev_seq };
	struct ring_info *ri;

	bpf_loop(CHAIN_MAX, chain_step, &w, 0);
	if (w.ended && (ri = bpf_map_lookup_elem(&rings, &ring)))
		__sync_fetch_and_add(&ri->freed, w.ended);
	return 0;
}

/* The request in @slot (key @req) ended with @res_cflags (CQE result in
 * the high half, flags in the low): release it and tell its session;
 * *@copy gets its entry. 1 if this caller released it. Global: verified
 * once per program, not at every caller. */
__noinline int end_one(int slot, __u64 req, __u64 res_cflags, __u32 how,
		       struct inflight_val *copy)
{
	if (!copy)
		return 0;
	return end_slot(slot, req, (__s32)(res_cflags >> 32), (__u32)res_cflags,
			how, copy);
}

/*
 * @req finished (or, for UC_DONE_REUSED, must have). @ring, when not 0,
 * must match the ring the request was submitted on: a completion on
 * another ring at the same address is someone else's. Inline, so that a
 * ring given as a kernel pointer can be compared (a global function takes
 * only numbers). @chain: the members before it in its link chain ended
 * too (an end the request itself announced; not one found on a list,
 * where those members are found on their own).
 */
static __always_inline __s64 end_request_how(__u64 req, __u64 ring, __s32 res,
					      __u32 cflags, __u32 how, bool chain)
{
	int slot = inf_find(req);
	struct inflight_val copy, *v;

	if (slot < 0)
		return -1;
	v = inf_val(slot);
	if (!v || (ring && v->ctx != ring))
		return -1;
	/* (Five arguments at most: result and flags travel together.) */
	if (!end_one(slot, req, ((__u64)(__u32)res << 32) | cflags, how, &copy))
		return -1;
	/* A linked timeout may fire while the request before it still
	 * runs: its end says nothing about that request. */
	if (chain && copy.prev_slot && copy.opcode != IORING_OP_LINK_TIMEOUT)
		end_chain(copy.prev_slot, copy.prev_seq, copy.ctx);
	/* The ended entry's flags, for the ring's counts, and its opcode + 1
	 * above them, for the teardown listing (uc_complete). */
	return session_owned_by(copy.session, copy.owner) ?
	       (copy.flags & 0xffff) | ((__s64)copy.opcode + 1) << 16 : 0;
}

#define end_request(req, ring, res, cflags, how) \
	end_request_how(req, ring, res, cflags, how, \
			(how) == UC_DONE_CQE || (how) == UC_DONE_OVERFLOW)

/* A request slot the kernel reuses: whatever held it ended unseen.
 * Global: the submit path reaches it in several states. */
__noinline int end_reused(__u64 req)
{
	end_request(req, 0, 0, 0, UC_DONE_REUSED);
	return 0;
}

/*
 * Reading a ring's free-request stack: every request the kernel finished
 * is pushed there (io_req_add_to_cache) until a submission takes it
 * again, so one found there has ended, whether or not it posted a CQE.
 */
struct list_walk {
	void *node;			/* struct io_wq_work_node * */
	void *mark;			/* a node passed (the cycle guard) */
	__u64 ring;
	__u32 n;			/* steps taken, when it stopped */
};

/*
 * The lists are the kernel's, read without its lock: one changed on
 * another CPU meanwhile can look like a cycle to the walk (a node popped
 * and pushed again behind it). Each walk is bounded by its step count
 * anyway; the guard (Brent's: the node at every power-of-two step is
 * kept, and meeting it again is a loop) stops such a walk within about
 * three times its loop's length instead of at the bound, and it counts
 * as a walk cut short. The step number comes from bpf_loop, not from a
 * counter in @w: the verifier then sees every step alike.
 */
static long end_listed(__u64 i, struct list_walk *w)
{
	struct io_wq_work_node *node = w->node;
	struct io_kiocb *req;

	w->n = i;
	if (!node)
		return 1;
	if (node == w->mark)
		return 1;		/* a loop: w->node stays set */
	if (!(i & (i - 1)))
		w->mark = node;
	req = comp_node_to_req(node);
	/* REISSUE requests go back to io-wq and finish later. */
	if (!(req_flags(req) & reissue_flag))
		end_request((__u64)req, w->ring, BPF_CORE_READ(req, cqe.res),
			    BPF_CORE_READ(req, cqe.flags), UC_DONE_LISTED);
	w->node = UC_NEXT(node);
	w->n = i + 1;
	return 0;
}

/* walk_list's answer: the steps it took, and whether it stopped before
 * the list's end (the list was longer, or looped). */
#define WALK_STEPS(r)	((__u32)(r) >> 1)
#define WALK_SHORT(r)	((r) & 1)

/* The longest walk of a kernel list, at a teardown (list_walk_max,
 * teardown.bpf.h, is at most this); a submission's look reads at most
 * COLLECT_DEPTH_MAX per list; a system call's look across a process's
 * rings COLLECT_BUDGET steps in all (docs/design.md, *What bounds each
 * loop*). */
#define WALK_MAX		65536
#define COLLECT_DEPTH_MAX	4096
#define COLLECT_BUDGET		(2 * (64 + 2 * COLLECT_DEPTH_MAX))

/* Ends the finished requests among the first @max of a list. Global: its
 * callback (which ends requests) is verified once per program, not once
 * per caller. */
__noinline int walk_list(__u64 first, __u64 ring, __u32 max)
{
	struct list_walk w = { .node = (void *)first, .ring = ring };

	if (max > WALK_MAX)
		max = WALK_MAX;
	bpf_loop(max, end_listed, &w, 0);
	return (int)(((w.n & (2 * WALK_MAX - 1)) << 1) | (w.node != NULL));
}

/*
 * Before a submission on a ring with CQE-skipping requests in flight:
 * the requests completed in the batch being built (the ones issued
 * inline by this very call), and the top of the free stack as deep as
 * the requests ended since the last look (plus the quiet ones, which
 * were not counted): a request freed since then is no deeper. Global:
 * verified once, for the submit path's several states.
 */
static __always_inline int collect_quiet_ends_here(__u64 ring_addr, struct ring_info *ri)
{
	struct io_ring_ctx *ring = (struct io_ring_ctx *)ring_addr;
	__u64 depth;
	int r, steps;

	if (!ri || !ring)
		return 0;
	depth = ri->freed + ri->quiet_inflight + 8;
	ri->freed = 0;
	unmatched_done(ri);
	if (depth > COLLECT_DEPTH_MAX)
		depth = COLLECT_DEPTH_MAX;
	r = walk_list((__u64)BPF_CORE_READ(ring, submit_state.compl_reqs.first), ring_addr, 64);
	steps = WALK_STEPS(r);
	r = walk_list((__u64)BPF_CORE_READ(ring, submit_state.free_list.next), ring_addr, depth);
	steps += WALK_STEPS(r);
	/* Before v6.4, requests io-wq finished wait on the locked list; it is
	 * a list (newest first) emptied into the stack in one go, so the
	 * same depth bounds the part freed since the last look. */
	r = walk_list(ctx_locked_free_first(ring), ring_addr, depth);
	return steps + WALK_STEPS(r);
}

__noinline int collect_quiet_ends(__u64 ring_addr, struct ring_info *ri)
{
	return collect_quiet_ends_here(ring_addr, ri);
}

struct collect_walk {
	__u32 tgid;
	__s32 budget;			/* list steps left for this call */
	__u64 pick;		/* the process's rings */
};

static long collect_ring(__u64 i, struct collect_walk *c)
{
	struct ring_info *ri;
	__u64 ctx;

	if (!ring_pick_slot(c->pick, &i))
		return 0;
	ri = ring_at(i, &ctx);
	if (!ri || ri->tgid != c->tgid || !(ri->quiet_inflight > 0 || ri->ovf_unmatched))
		return 0;
	if (c->budget <= 0) {
		/* The rest waits for each ring's next submission (its freed
		 * count is kept); said, as a walk cut short. */
		stat_inc(ri->session, UC_STAT_WALK_TRUNC);
		return 1;
	}
	/* Inlined here: a call of its own was one frame too many on
	 * sys_enter's deepest chain (sys_enter, watched_call, this step,
	 * walk_list, end_listed, end_one): 6.1's verifier refused its
	 * combined stack, 544 bytes of 512 (each frame counts at least 32). */
	c->budget -= collect_quiet_ends_here(ctx, ri);
	return 0;
}

/* Before a system call of @tgid is judged against its in-flight memory:
 * its rings' lists, COLLECT_BUDGET steps in all (one ring's worth twice
 * over; the ring begun last may take its whole depth: three rings' worth
 * at most), however many rings it has (up to 4096, each of which may be
 * read 64 + 2 x 4096 deep). */
static __always_inline void collect_process_quiet_ends(__u32 tgid)
{
	struct collect_walk c = { .tgid = tgid, .budget = COLLECT_BUDGET };

	if (quiet_total > 0 || unmatched_total > 0)
		bpf_loop(ring_pick_init(&c.pick, tgid), collect_ring, &c, 0);
}

#endif /* __REQUEST_ENDS_BPF_H */
