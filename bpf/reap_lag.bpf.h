/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reap lag, judged from the kernel side so it works for any program,
 * including liburing's inline io_uring_peek_cqe/io_uring_wait_cqe paths
 * that consume a CQE without entering the kernel.
 *
 * io_uring_complete records when the CQE at each CQ position was posted
 * (ring_info.post_ts, keyed by position so a stale slot is recognised).
 * A sampler on a perf cpu-clock event (attached by each instance that has
 * reap lag enabled) reads every tracked ring's CQ head and tail (the ring
 * list of ring_index.bpf.h: as long as the rings that exist): a CQE
 * ready at the head for longer than its session's threshold is late; when
 * the head moves past it, one UC_EV_REAP_LAG reports how long it waited,
 * bounded below by the last sample that still saw it and above by this
 * one.
 */
#ifndef __REAP_LAG_BPF_H
#define __REAP_LAG_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "uringcheck.h"
#include "fixed_layout.bpf.h"
#include "session.bpf.h"
#include "tracked.bpf.h"
#include "events.bpf.h"
#include "lag_clock.bpf.h"
#include "uprobe_forms.bpf.h"
#include "rings.bpf.h"
#include "ring_index.bpf.h"
#include "stacks.bpf.h"

#define UC_SETUP_CQE32	(1u << 11)	/* uapi IORING_SETUP_CQE32 */

static __always_inline __u64 cqe_user_data(struct io_ring_ctx *ring,
					   struct io_rings *r, __u32 pos)
{
	__u32 mask = BPF_CORE_READ(r, cq_ring_mask);
	__u32 shift = (BPF_CORE_READ(ring, flags) & UC_SETUP_CQE32) ? 1 : 0;
	struct uc_cqe *cqes = (void *)((char *)r +
				    bpf_core_field_offset(struct io_rings, cqes));
	__u64 ud = 0;

	bpf_probe_read_kernel(&ud, sizeof(ud), &cqes[(pos & mask) << shift].user_data);
	return ud;
}

/* The 16 bytes of the CQE at CQ position @pos (user_data, res, flags),
 * copied to @dst in one read. */
static __always_inline void cqe_read_into(struct io_ring_ctx *ring, struct io_rings *r,
					  __u32 pos, void *dst)
{
	__u32 mask = BPF_CORE_READ(r, cq_ring_mask);
	__u32 shift = (BPF_CORE_READ(ring, flags) & UC_SETUP_CQE32) ? 1 : 0;
	struct uc_cqe *cqes = (void *)((char *)r +
				    bpf_core_field_offset(struct io_rings, cqes));

	bpf_probe_read_kernel(dst, 16, &cqes[(pos & mask) << shift]);
}

/*
 * The late CQE at lag_pos is gone from the head: report how late. With
 * @grace (a sample, not a call, in liburing uprobe mode), the first
 * sample to see it gone only notes when: the program's next call into
 * liburing, usually microseconds later, is where it came back for its
 * completions, and reports it with that call's stack. A sample @grace
 * later reports it without one (the program went on without calling
 * liburing). On a loaded machine the program can be preempted between
 * its inline io_uring_cqe_seen() and that call, and the sampler, on
 * another CPU, used to report first: a finding without its reap site.
 */
static __always_inline void lag_consumed(__u64 ring, struct ring_info *ri,
					 __u32 head, __u64 now, bool at_call,
					 __u64 grace)
{
	struct uc_reap_lag *e;
	__u64 stack;

	if (!ri->lag_active || head == ri->lag_pos)
		return;
	if (grace) {
		if (!ri->lag_gone) {
			ri->lag_gone = now ? now : 1;
			return;
		}
		if (now - ri->lag_gone < grace)
			return;
	}
	/* consumed before the first sample that saw it gone */
	if (ri->lag_gone && ri->lag_gone < now)
		now = ri->lag_gone;
	ri->lag_gone = 0;
	ri->lag_active = 0;
	/* Seen at a call into liburing: that call is where the program came
	 * back for its completions. */
	stack = at_call ? capture_stack(ri->session, ri->tgid) : 0;
	e = ev_reserve(ri->session, sizeof(*e), UC_EV_REAP_LAG);
	if (!e)
		return;
	fill_hdr(&e->hdr, UC_EV_REAP_LAG, ri->tgid);
	e->ctx = ring;
	e->user_data = ri->lag_user_data;
	e->lag_ns = now - ri->lag_post;
	e->lag_min_ns = ri->lag_seen - ri->lag_post;
	e->pending = ri->lag_pending;
	e->pad = 0;
	e->reap_stack_id = stack;
	e->blocked_ns = ri->lag_block_ns;
	e->blocked_nr = ri->lag_block_ns ? (__s32)ri->lag_block_nr : -1;
	e->blocked_tid = ri->lag_block_tid;
	ev_submit(ri->session, e);
}

struct sample_ctx {
	__u32 tgid;			/* 0: every tracked ring */
	__u32 at_call;			/* from a liburing uprobe */
	__u64 pick;		/* with a tgid: the process's rings */
};

static long sample_ring(__u64 i, struct sample_ctx *sc)
{
	struct io_ring_ctx *ring;
	struct uc_session_cfg *cfg;
	struct ring_info *ri;
	struct io_rings *r;
	__u64 post, threshold, now, key;
	__u32 head, tail;

	if (!ring_pick_slot(sc->pick, &i))
		return 0;
	ri = ring_at(i, &key);
	if (!ri || (sc->tgid && ri->tgid != sc->tgid))
		return 0;
	ring = (struct io_ring_ctx *)key;
	/* The ring's session's threshold, and the clock it is timed with. */
	cfg = session_cfg(ri->session);
	if (!cfg || !cfg->reap_lag_ns)
		return 0;
	threshold = cfg->reap_lag_ns;
	now = lag_clock(threshold);
	r = BPF_CORE_READ(ring, rings);
	head = BPF_CORE_READ(r, cq.head);
	tail = BPF_CORE_READ(r, cq.tail);
	if (sc->at_call)
		ri->lag_calls = 1;
	/* a sample waits half the threshold for a call: two sampler periods
	 * or more (a period is a quarter of the threshold, at most 25 ms:
	 * checker/session.c) */
	lag_consumed(key, ri, head, now, sc->at_call,
		     !sc->at_call && ri->lag_calls ? threshold / 2 : 0);
	if (head == tail)
		return 0;
	if (ri->lag_active) {
		if (!ri->lag_gone)
			ri->lag_seen = now;
		return 0;
	}
	/* When was the CQE at the head posted? Only trusted while the ring
	 * holds fewer ready CQEs than slots (no slot reused since). */
	if (tail - head > POST_TS_SLOTS)
		return 0;
	/* A CQE moved in from the overflow list fired no tracepoint: its
	 * slot still names an older position. */
	if (ri->post_pos[head & (POST_TS_SLOTS - 1)] != head)
		return 0;
	post = ri->post_ts[head & (POST_TS_SLOTS - 1)];
	if (!post || now < post || now - post <= threshold)
		return 0;
	ri->lag_active = 1;
	ri->lag_pos = head;
	ri->lag_post = post;
	ri->lag_seen = now;
	ri->lag_pending = tail - head;
	ri->lag_user_data = cqe_user_data(ring, r, head);
	ri->lag_block_ns = 0;
	return 0;
}

SEC("perf_event")
int uc_reap_sampler(void *ctx)
{
	struct sample_ctx sc = { .pick = RING_PICK_ALL };

	bpf_loop(ring_slots_hi, sample_ring, &sc, 0);
	return 0;
}

/*
 * liburing uprobe mode: an entry into liburing (submit, wait, peek_batch,
 * queue_exit, ...) is a moment the program has finished with the CQEs it
 * consumed inline, so sample its rings right then instead of at the next
 * tick. The inline consumption itself (io_uring_cqe_seen, cq_advance) has
 * no entry point to probe. Attached per followed process
 * (checker/liburing_probes.c), in either form (uprobe_forms.bpf.h).
 */
UPROBE_PROGRAM(uc_liburing_call)
{
	struct sample_ctx sc = { .at_call = 1 };

	if (!current_tracked(&sc.tgid))
		return 0;
	bpf_loop(ring_pick_init(&sc.pick, sc.tgid), sample_ring, &sc, 0);
	return 0;
}

#endif /* __REAP_LAG_BPF_H */
