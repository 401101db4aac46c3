/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Teardown snapshot: when a process is about to exit (exit_group, exit of
 * its last thread, a fatal signal), to exec, or the last descriptor of a
 * ring is closed, every request still in flight there is left to the
 * kernel, which is about to cancel it. Posted CQEs the program never
 * consumed, and the ring's own counters of what the kernel dropped, are
 * read at the same moment.
 *
 * First the rings' free-request stacks are read whole: a request that
 * finished without a CQE of its own (CQE skipped, or overflowed without
 * being matched at once) is there, and is not "in flight".
 *
 * Records: UC_EV_UNREAPED per ring, UC_EV_DROPPED per request, then one
 * UC_EV_TEARDOWN that closes the set (user space judges on it).
 */
#ifndef __TEARDOWN_BPF_H
#define __TEARDOWN_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "uringcheck.h"
#include "fixed_layout.bpf.h"
#include "session.bpf.h"
#include "tracked.bpf.h"
#include "events.bpf.h"
#include "sequence.bpf.h"
#include "lag_clock.bpf.h"
#include "rings.bpf.h"
#include "ring_index.bpf.h"
#include "inflight.bpf.h"
#include "request_ends.bpf.h"
#include "reap_lag.bpf.h"

/* Set by user space before load: the longest free-request stack read at
 * a teardown; the rest is counted (UC_STAT_WALK_TRUNC). */
const volatile __u32 list_walk_max = 65536;

struct td_ctx {
	__u64 id;
	__u64 ring;		/* 0: every ring/request of tgid */
	__u64 pick;		/* with no ring: the process's rings */
	__u32 tgid;
	__u32 session;		/* the process's; its records go there */
	__u32 owner;		/* the session's instance (session_owner) */
	__s32 budget;		/* list steps left, over all its rings */
	/* Bytes, not words: this context sits in teardown()'s frame, on
	 * call chains 6.1 limits to 512 bytes of stack. */
	__u8 report;		/* send DROPPED records (else only forget) */
	__u8 forget;		/* free the slots: the process is going away */
	__u8 mark_seen;		/* a ring's close: its requests may outlive it
				 * (until the kernel ends them); a later
				 * teardown does not report them again */
};

/* A teardown record; one that does not fit is counted as such. */
static __always_inline void *td_reserve(struct td_ctx *td, __u64 size)
{
	void *rb = session_rb(td->session), *e;

	if (!rb)
		return NULL;
	e = bpf_ringbuf_reserve(rb, size, 0);
	if (!e)
		stat_inc(td->session, UC_STAT_DROPPED_TRUNC);
	return e;
}

/*
 * One request in flight at the teardown: report it dropped, and when the
 * process is going away, free its slot. The table outlives any one
 * process (and any one instance, checker/shared.h): a request whose end
 * the kernel never reports (some cancellations at exit post no CQE) would
 * otherwise stay there, and match a later ring at the same address or a
 * later process with the same tgid. Only the session's own requests
 * match: another instance's process may reuse either.
 */
static __always_inline void td_request(__u64 *key, struct inflight_val *v,
				       struct td_ctx *td)
{
	__u64 req = *key;
	struct uc_dropped *e;

	/* Read again: freed or being claimed since the window was read. */
	if (req <= INF_BUSY)
		return;
	if (v->session != td->session || v->owner != td->owner ||
	    (td->ring ? v->ctx != td->ring : v->tgid != td->tgid))
		return;
	if (td->forget && __sync_val_compare_and_swap(key, req, 0) == req &&
	    session_owned_by(v->session, v->owner))
		ring_add(v->ctx, v->flags);
	/* A zero-copy send is reported once, through its notification; a
	 * request reported at its ring's close, once. */
	if (!td->report || (v->flags & (INF_ZC_MAIN | INF_TD_SEEN)))
		return;
	if (td->mark_seen)
		v->flags |= INF_TD_SEEN;
	e = td_reserve(td, sizeof(*e));
	if (!e)
		return;
	fill_hdr(&e->hdr, UC_EV_DROPPED, v->tgid);
	e->hdr.tid = v->tid;
	e->seq = v->seq;
	e->ctx = v->ctx;
	e->user_data = v->user_data;
	e->submit_ts = v->ts;
	e->teardown = td->id;
	e->stack_id = v->stack_id;
	e->opcode = v->opcode;
	e->holds_mem = !!(v->flags & INF_HOLDS_MEM);
	__builtin_memset(e->pad, 0, sizeof(e->pad));
	bpf_ringbuf_submit(e, 0);	/* the closing record wakes the reader */
}

/* Slot @idx: its request, if it has one; 1 if the slot is still taken
 * after that. Global, checks and all: verified once, not once per slot
 * of the window (inlined eight times, the teardown was the largest piece
 * of start-up's verification; with the checks inlined, a third of it). */
__noinline int td_slot(__u32 idx, struct td_ctx *td)
{
	__u64 *k = inf_key(idx);
	struct inflight_val *v;

	/* A freed slot keeps its old value; a busy one is being written
	 * (bpf/inflight.bpf.h). */
	if (!k || !*k || !td)
		return 0;
	if (*k > INF_BUSY && (v = bpf_map_lookup_elem(&inf_vals, &idx)))
		td_request(k, v, td);
	return *k != 0;			/* not forgotten just now */
}

/* Is slot @idx taken? Global, for the same reason. */
__noinline int td_slot_taken(__u32 idx)
{
	__u64 *k = inf_key(idx);

	return k && *k;
}

#define TD_SCAN		8	/* slots per step of a region's scan */

/*
 * The scan is three bpf_loops (words of marks -> bits -> windows of a
 * region), each with a context that does not change from step to step:
 * the verifier checks a callback like a loop body, once, where a bounded
 * loop over 64 bits, or a cursor carried from step to step, made it walk
 * every iteration at every caller (tens of thousands of instructions for
 * each of the four programs that reach a teardown).
 */
struct td_region_walk {
	struct td_ctx *td;
	__u32 base;			/* the region's first slot */
	__u32 taken;			/* a slot was taken: keep the mark */
};

/* Window @i of a region: TD_SCAN slots, one cache line of keys.
 * Unrolled, and without a branch of its own: with no back edge and one
 * state per slot, the verifier walks each slot once. */
static long td_window(__u64 i, struct td_region_walk *w)
{
	__u32 taken = 0;

#pragma unroll
	for (__u32 j = 0; j < TD_SCAN; j++)
		taken |= td_slot((w->base + (__u32)i * TD_SCAN + j) & inf_mask, w->td);
	if (taken)
		w->taken = 1;
	return 0;
}

/* Window @i of a region, for the check below: is any slot taken? */
static long td_window_taken(__u64 i, struct td_region_walk *w)
{
	__u32 taken = 0;

#pragma unroll
	for (__u32 j = 0; j < TD_SCAN; j++)
		taken |= td_slot_taken((w->base + (__u32)i * TD_SCAN + j) & inf_mask);
	if (!taken)
		return 0;
	w->taken = 1;
	return 1;
}

/*
 * Region @r, marked: its requests. A region found empty loses its mark:
 * cleared, then its keys read again, and marked again if one was claimed
 * meanwhile (the counterpart of inf_region_mark's order, see
 * bpf/inflight.bpf.h). A region with requests keeps its mark throughout,
 * so a teardown scanning at the same time (another process's) never
 * misses it. Global: verified once per program.
 */
__noinline int td_region(__u32 r, struct td_ctx *td)
{
	__u32 w = r >> 6;
	__u64 bit = 1ull << (r & 63), *m = bpf_map_lookup_elem(&inf_regions, &w);
	struct td_region_walk rw = { .td = td, .base = r << INF_REGION_SHIFT };

	if (!m || !td)
		return 0;
	bpf_loop(INF_REGION / TD_SCAN, td_window, &rw, 0);
	if (rw.taken)
		return 0;
	__sync_fetch_and_and(m, ~bit);
	bpf_loop(INF_REGION / TD_SCAN, td_window_taken, &rw, 0);
	if (rw.taken)
		__sync_fetch_and_or(m, bit);
	return 0;
}

struct td_word_walk {
	struct td_ctx *td;
	__u64 bits;			/* the word's marks */
	__u32 word;
};

static long td_bit(__u64 i, struct td_word_walk *ww)
{
	if ((ww->bits >> i) & 1)
		td_region(ww->word * 64 + (__u32)i, ww->td);
	return 0;
}

/* Word @i of the marks: its marked regions. */
static long td_word(__u64 i, struct td_ctx *td)
{
	struct td_word_walk ww = { .td = td, .word = i };
	__u64 *m = bpf_map_lookup_elem(&inf_regions, &ww.word);

	if (!m || !(ww.bits = *m))
		return 0;
	bpf_loop(64, td_bit, &ww, 0);
	return 0;
}

/* Every request of the table that may match @td. Global: verified once,
 * not at every state a teardown reaches it in. */
__noinline int td_scan(struct td_ctx *td)
{
	struct td_ctx c;		/* a loop's context lives on the stack */

	if (!td)
		return 0;
	c = *td;
	bpf_loop(inf_region_words(), td_word, &c, 0);
	return 0;
}

#define OVERFLOW_COUNT_MAX	65536

struct overflow_walk {
	struct list_head *head;		/* the ring's cq_overflow_list */
	struct list_head *pos;
	struct list_head *mark;		/* an entry passed (the cycle guard) */
	__u32 n;			/* entries: the maximum unless it ended */
};

static long overflow_step(__u64 i, struct overflow_walk *w)
{
	struct list_head *pos = w->pos;

	/* The count is the step it stops at: a counter bumped every step
	 * would keep the verifier from seeing the steps as alike. */
	if (!pos || pos == w->head) {
		w->n = i;
		return 1;
	}
	/* A list changed under the walk that loops without its head (the
	 * cycle guard of end_listed): stopped there, counted as capped. */
	if (pos == w->mark) {
		w->n = i;
		return 1;
	}
	if (!(i & (i - 1)))
		w->mark = pos;
	w->pos = UC_NEXT(pos);
	return 0;
}

/* Entries on the CQ overflow list (a list_head ring), up to
 * OVERFLOW_COUNT_MAX (*capped says so). A bpf_loop, not a bounded for
 * loop: the verifier walked every iteration of that one. */
static __always_inline __u32 overflow_count(struct io_ring_ctx *ring, __u32 *capped)
{
	struct overflow_walk w = { .head = &ring->cq_overflow_list,
				   .n = OVERFLOW_COUNT_MAX };

	w.pos = BPF_CORE_READ(ring, cq_overflow_list.next);
	bpf_loop(OVERFLOW_COUNT_MAX, overflow_step, &w, 0);
	*capped = w.pos && w.pos != w.head;	/* the bound, or a loop */
	return w.n;
}

/* One ring at a teardown: its finished requests ended first, then its
 * completion side recorded. Global: verified once, not per caller (as
 * inline code it doubled the verification of every teardown caller). */
/* The first CQEs left unconsumed, straight into the record: what they
 * were says who forgot them. A subprogram of its own, so that their
 * loop does not grow td_one_ring's frame, part of a call chain whose
 * stack 6.1 limits to 512 bytes. */
static __noinline void list_cqes(struct uc_unreaped *e, __u64 key, struct ring_info *ri,
				 __u32 head, __u32 tail)
{
	struct io_ring_ctx *ring = (struct io_ring_ctx *)key;
	struct io_rings *r = BPF_CORE_READ(ring, rings);

	e->ncqes = 0;
	for (int i = 0; i < UC_UNREAPED_SHOWN; i++) {
		__u32 pos = head + i;

		__builtin_memset(&e->cqes[i], 0, sizeof(e->cqes[i]));
		if ((__s32)(tail - pos) <= 0)
			continue;
		/* user_data, res, and the CQE's flags where opcode1 goes */
		cqe_read_into(ring, r, pos, &e->cqes[i]);
		e->cqes[i].opcode1 = ri->post_pos[pos & (POST_TS_SLOTS - 1)] == pos ?
				     ri->post_op[pos & (POST_TS_SLOTS - 1)] : 0;
		e->cqes[i].pad = 0;
		e->ncqes = i + 1;
	}
}

/* The next list's bound: list_walk_max, or what is left of the budget. */
static __always_inline __u32 td_walk_max(struct td_ctx *td)
{
	if (td->budget <= 0)
		return 0;
	return (__u32)td->budget < list_walk_max ? (__u32)td->budget : list_walk_max;
}

/* A ring's free lists at its teardown: the requests that ended without
 * a CQE. Inline: in td_ring's frame, not in a call of td_one_ring's, the
 * walk's chain (sys_enter, teardown, td_ring, walk_list, end_listed,
 * end_one) stays within the 512 bytes 6.1's verifier allows a chain; one
 * call more was 544. */
static __always_inline void td_walk_lists(__u64 key, struct ring_info *ri, struct td_ctx *td)
{
	struct io_ring_ctx *ring = (struct io_ring_ctx *)key;

	if (ri->quiet_inflight > 0 || ri->ovf_unmatched) {
		/* Each list at most list_walk_max deep, and all the rings of
		 * a teardown at most twice that (td->budget): a process with
		 * many rings costs no more than one with a single ring. */
		int r1, r2;

		r1 = walk_list((__u64)BPF_CORE_READ(ring, submit_state.free_list.next), key,
			       td_walk_max(td));
		td->budget -= WALK_STEPS(r1);
		r2 = walk_list(ctx_locked_free_first(ring), key,
			       td_walk_max(td));
		td->budget -= WALK_STEPS(r2);
		if (WALK_SHORT(r1) || WALK_SHORT(r2))
			stat_inc(td->session, UC_STAT_WALK_TRUNC);
		ri->freed = 0;
		unmatched_done(ri);
	}
}

/* @walked: its lists were read already (td_ring). */
__noinline int td_one_ring(__u64 key, struct ring_info *ri, struct td_ctx *td, int walked)
{
	struct io_ring_ctx *ring = (struct io_ring_ctx *)key;
	struct uc_session_cfg *cfg;
	struct io_rings *r;
	struct uc_unreaped *e;
	__u32 head, tail, over, capped = 0, sq_dropped, cq_overflow;

	if (!ri || !td)
		return 0;
	if (!walked)
		td_walk_lists(key, ri, td);
	r = BPF_CORE_READ(ring, rings);
	head = BPF_CORE_READ(r, cq.head);
	tail = BPF_CORE_READ(r, cq.tail);
	/* A late CQE consumed since the last sample is reported now: the
	 * sampler will not see this ring again. */
	cfg = session_cfg(ri->session);
	if (cfg && cfg->reap_lag_ns)
		lag_consumed(key, ri, head, lag_clock(cfg->reap_lag_ns), false, 0);
	over = overflow_count(ring, &capped);
	sq_dropped = BPF_CORE_READ(r, sq_dropped);
	cq_overflow = BPF_CORE_READ(r, cq_overflow);
	/* Sent even when all is well: user space marks how far the CQ was
	 * told (a ring outlives an exec's teardown). */
	e = td_reserve(td, sizeof(*e));
	if (!e)
		return 0;
	fill_hdr(&e->hdr, UC_EV_UNREAPED, ri->tgid);
	e->ctx = key;
	e->teardown = td->id;
	e->cq_head = head;
	e->cq_tail = tail;
	e->overflowed = over;
	e->overflow_capped = capped;
	e->sq_dropped = sq_dropped;
	e->cq_overflow = cq_overflow;
	e->sq_dropped_kernel = ri->sq_dropped_kernel;
	list_cqes(e, key, ri, head, tail);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

static long td_ring(__u64 i, struct td_ctx *td)
{
	struct ring_info *ri;
	__u64 ctx;

	if (!ring_pick_slot(td->pick, &i))
		return 0;
	ri = ring_at(i, &ctx);
	if (ri && ri->tgid == td->tgid) {
		td_walk_lists(ctx, ri, td);
		td_one_ring(ctx, ri, td, 1);
	}
	return 0;
}

/* Global: reached from four places (exit, exec, close, fatal signal),
 * each of which would otherwise verify both table walks again. */
__noinline int teardown(__u32 sid, __u32 tgid, __u64 ring, __u32 reason,
			__s32 detail)
{
	struct td_ctx td = { .ring = ring, .tgid = tgid, .session = sid,
			     .report = 1,
			     .forget = reason == UC_TD_EXIT || reason == UC_TD_SIGNAL,
			     .mark_seen = reason == UC_TD_CLOSE,
			     .owner = session_owner(sid),
			     .budget = 2 * list_walk_max };
	struct uc_tracked *t = bpf_map_lookup_elem(&tracked, &tgid);
	struct uc_teardown *e;
	bool scan;

	td.id = new_seq();
	if (ring) {
		struct ring_info *ri = bpf_map_lookup_elem(&rings, &ring);

		/* A ring with nothing in flight costs no table scan: test
		 * suites create and close thousands. */
		scan = !ri || ri->inflight != 0;
		if (ri)
			td_one_ring(ring, ri, &td, 0);
	} else {
		bpf_loop(ring_pick_init(&td.pick, tgid), td_ring, &td, 0);
		/* Not for the many processes of a test run (shells,
		 * compilers) that never touched io_uring. */
		scan = !t || t->used_uring;
	}
	if (scan)
		td_scan(&td);

	/* The ring is going away: its cancellations still end requests
	 * (through the inflight table), but it no longer has CQEs to judge. */
	if (ring) {
		struct ring_info *ri = bpf_map_lookup_elem(&rings, &ring);

		if (ri) {
			ring_slot_release(ri->slot1, ring, ri->tgid);
			pbuf_ring_gone(ri);
		}
		bpf_map_delete_elem(&rings, &ring);
	}
	e = ev_reserve(sid, sizeof(*e), UC_EV_TEARDOWN);
	if (!e)
		return 0;
	fill_hdr(&e->hdr, UC_EV_TEARDOWN, tgid);
	e->id = td.id;
	e->ctx = ring;
	e->reason = reason;
	e->detail = detail;
	/* Where the program was when it let go; only for a process that
	 * used io_uring (every tracked exit comes here). No local for it:
	 * this frame is part of a call chain 6.1 limits to 512 bytes. */
	e->stack_id = (ring || (t && t->used_uring)) ? capture_stack(sid, tgid) : 0;
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	return 0;
}

/* A process that went away without a teardown (killed outright, say):
 * free its slots, report nothing. */
__noinline int forget_process(__u32 sid, __u32 tgid)
{
	struct td_ctx td = { .tgid = tgid, .session = sid, .forget = 1,
			     .owner = session_owner(sid) };

	td_scan(&td);
	return 0;
}

#endif /* __TEARDOWN_BPF_H */
