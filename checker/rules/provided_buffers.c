// SPDX-License-Identifier: GPL-2.0
/*
 * Provided buffers (docs/hazards.md): a buffer-select request holds the
 * buffer the kernel picked for it, from the pick to the CQE that hands
 * the buffer back. The kernel side tells which buffer and when it saw it
 * held (bpf/provided_buffers.bpf.h, struct uc_pick):
 *
 *  - held before its CQE (at a system call of the process or a new
 *    request on the ring, sent just before that record): the buffer joins
 *    the address space's in-flight set as the request's range, so the
 *    overlap, sync-overlap and munmap-inflight rules judge what follows
 *    against it as against any other request;
 *  - at its CQE: the buffer was held up to now. Judged against everything
 *    in flight at this moment (a request still in flight now was in
 *    flight while the kernel held the buffer), then it goes back to the
 *    program. If the program had put its memory back in the buffer ring
 *    before this CQE, that is pbuf-reprovided.
 *
 * Legacy groups (IORING_OP_PROVIDE_BUFFERS) are resolved here: the
 * kernel's record of a legacy buffer is freed when it hands it back.
 */
#include <stdlib.h>

#include "tracker.h"
#include "describe.h"
#include "xalloc.h"
#include "kinds/kind_reports.h"
#include "../../reports/dedup.h"

struct legacy_buf {
	uint64_t addr;
	uint32_t len;
};

static uint64_t legacy_key(uint16_t bgid, uint16_t bid)
{
	return (uint64_t)bgid << 16 | bid;
}

void pbuf_on_provide(struct uc_tracker *t, const struct uc_provide *p)
{
	struct uc_ring *ring = tracker_ring(t, p->ctx, p->hdr.tgid);
	/* The kernel takes at most 2^16 buffers a call (MAX_BIDS_PER_BGID). */
	uint32_t n = p->nbufs > 65536 ? 65536 : p->nbufs;

	if (!ring->legacy_init) {
		u64map_init(&ring->legacy_bufs);
		ring->legacy_init = true;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t key = legacy_key(p->bgid, (uint16_t)(p->bid + i));
		struct legacy_buf *b = u64map_get(&ring->legacy_bufs, key);

		if (!b) {
			b = xmalloc(sizeof(*b));
			u64map_put(&ring->legacy_bufs, key, b);
		}
		b->addr = p->addr + (uint64_t)i * p->len;
		b->len = p->len;
	}
}

static void free_buf(uint64_t key, void *val, void *arg)
{
	(void)key;
	(void)arg;
	free(val);
}

void pbuf_ring_free(struct uc_ring *ring)
{
	if (!ring->legacy_init)
		return;
	u64map_each(&ring->legacy_bufs, free_buf, NULL);
	u64map_free(&ring->legacy_bufs);
	ring->legacy_init = false;
}

/* A held buffer attached before events were lost: the CQE that gave it
 * back may be among them, so it may be held no more. */
bool pbuf_node_doubtful(const struct uc_tracker *t, const struct itree_node *n)
{
	const struct uc_request *r = n->owner;

	return n == &r->pick_node && t->ev.events_lost != r->pick_loss_mark;
}

/* The request no longer holds its buffer (its CQE, or it left flight). */
void pbuf_release(struct uc_tracker *t, struct uc_request *r)
{
	(void)t;
	if (!r->pick_held)
		return;
	itree_remove(&r->as->ranges, &r->pick_node);
	r->pick_held = false;
}

struct picker_scan {
	const struct uc_request *holder;
	bool found;
};

static void find_picker(uint64_t key, void *val, void *arg)
{
	const struct uc_request *r = val, *h = ((struct picker_scan *)arg)->holder;

	(void)key;
	if (r != h && (r->sub.flags & UC_SUB_BUFFER_SELECT) && r->sub.ctx == h->sub.ctx &&
	    r->sub.buf_index == h->sub.buf_index)
		((struct picker_scan *)arg)->found = true;
}

/*
 * Memory available to the kernel twice is a hazard only while a request
 * that could pick the second copy is in flight: the holder itself when it
 * goes on (multishot), or another buffer-select request of the group.
 * liburing's buf-ring tests give one buffer under every id of a ring and
 * read into it one request at a time: nothing can pick it meanwhile.
 */
static bool pickable(struct uc_tracker *t, const struct uc_request *r,
		     const struct uc_pick *p)
{
	struct picker_scan s = { .holder = r };

	if (p->flags & UC_PICK_MORE)
		return true;
	u64map_each(&t->requests, find_picker, &s);
	return s.found;
}

static void report_reprovided(struct uc_tracker *t, struct uc_request *r,
			      const struct uc_pick *p, uint64_t start, uint64_t end)
{
	struct uc_pbuf_finding f = { 0 };

	f.tgid = r->as->tgid;
	f.bgid = p->bgid;
	f.bid = p->bid;
	f.again_pos = p->again_pos;
	f.avail = p->avail;
	f.res = p->res;
	describe_request(&f.holder, r, start, end);
	f.key = uc_key_mix(uc_key_mix(0, stacks_site_key(&t->stacks, r->sub.stack_id)),
			   (uint64_t)p->bgid << 8 | r->sub.opcode);
	if (!r->sub.stack_id)
		f.key = uc_key_mix(f.key, r->as->tgid);
	report_pbuf_reprovided(t->report, &f);
}

void pbuf_on_pick(struct uc_tracker *t, const struct uc_pick *p)
{
	struct uc_request *r = u64map_get(&t->requests, p->seq);
	uint64_t addr = p->addr, len = p->len, end;

	if (!r || r->sub.ctx != p->ctx)
		return;		/* its submission was not seen */
	if (p->flags & UC_PICK_RELEASED) {
		/* The kernel took the buffer back unused (a receive that
		 * had to wait): another request may hold it now. */
		pbuf_release(t, r);
		return;
	}
	t->picks++;
	if (!addr && (p->flags & UC_PICK_LEGACY) && r->ring->legacy_init) {
		struct legacy_buf *b = u64map_get(&r->ring->legacy_bufs,
						  legacy_key(p->bgid, p->bid));

		if (b) {
			addr = b->addr;
			len = b->len;
		}
	}
	if (!addr || !len || (p->flags & UC_PICK_UNRESOLVED)) {
		t->picks_unresolved++;
		if (p->flags & UC_PICK_CQE)
			pbuf_release(t, r);	/* whatever it held, it gave back */
		return;
	}
	end = addr + len < addr ? UINT64_MAX : addr + len;
	r->pick_bid = p->bid;

	/* Events lost since its submission: the ends of what it would be
	 * compared with are applied first, as for a new request. */
	evidence_refresh(t);
	if (p->flags & UC_PICK_HELD) {
		if (r->pick_held && r->pick_node.start == addr && r->pick_node.end == end)
			return;		/* known already */
		pbuf_release(t, r);
		overlap_check_range(t, r, addr, end);
		r->pick_node.start = addr;
		r->pick_node.end = end;
		r->pick_node.owner = r;
		r->pick_loss_mark = t->ev.events_lost;
		itree_insert(&r->as->ranges, &r->pick_node);
		r->pick_held = true;
		return;
	}
	/* At its CQE: judged now unless it was while held. */
	if (!(r->pick_held && r->pick_node.start == addr && r->pick_node.end == end))
		overlap_check_range(t, r, addr, end);
	if ((p->flags & UC_PICK_REPROVIDED) && pickable(t, r, p))
		report_reprovided(t, r, p, addr, end);
	pbuf_release(t, r);
}
