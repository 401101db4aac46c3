// SPDX-License-Identifier: GPL-2.0
/* The check mode's model: tracker.h. */
#include "tracker.h"

#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "xalloc.h"

static void free_cb(uint64_t key, void *val, void *arg)
{
	(void)key;
	(void)arg;
	free(val);
}

struct pending {
	struct uc_range *ranges;
	uint32_t nr;
};

void tracker_init(struct uc_tracker *t, struct uc_stacks *stacks,
		  void (*on_end)(void *arg, const struct uc_request *r), void *end_arg)
{
	memset(t, 0, sizeof(*t));
	u64map_init(&t->aspaces);
	u64map_init(&t->rings);
	u64map_init(&t->requests);
	u64map_init(&t->by_req);
	u64map_init(&t->pending_ranges);
	t->spare_requests = (struct freelist){ .cap = 256 };
	t->stacks = stacks;
	t->on_end = on_end;
	t->end_arg = end_arg;
}

static struct uc_aspace *aspace_new(struct uc_tracker *t, uint32_t tgid,
				    uint32_t generation)
{
	struct uc_aspace *as = xcalloc(1, sizeof(*as));

	as->tgid = tgid;
	as->generation = generation;
	itree_init(&as->ranges);
	/* An address space replaced by exec stays alive (unreferenced by
	 * the map) while its last requests drain; see request_free(). */
	u64map_put(&t->aspaces, tgid, as);
	return as;
}

static struct uc_aspace *aspace_get(struct uc_tracker *t, uint32_t tgid)
{
	struct uc_aspace *as = u64map_get(&t->aspaces, tgid);

	return as ? as : aspace_new(t, tgid, 0);
}

static void aspace_maybe_free(struct uc_tracker *t, struct uc_aspace *as)
{
	if (as->inflight == 0 && u64map_get(&t->aspaces, as->tgid) != as)
		free(as);
}

struct uc_ring *tracker_ring(struct uc_tracker *t, uint64_t ctx, uint32_t tgid)
{
	struct uc_ring *r = u64map_get(&t->rings, ctx);

	if (!r) {
		r = xcalloc(1, sizeof(*r));
		r->ctx = ctx;
		r->tgid = tgid;
		r->fd = -1;
		u64map_put(&t->rings, ctx, r);
	}
	return r;
}

static void request_free(struct uc_tracker *t, struct uc_request *r)
{
	struct uc_aspace *as = r->as;

	for (uint32_t i = 0; i < r->nr_nodes; i++)
		itree_remove(&as->ranges, &r->nodes[i]);
	tracker_release(t, r);
	if (r->counted)
		as->inflight--;
	stacks_unref(t->stacks, r->sub.stack_id);
	if (r->nodes != &r->node_one)
		free(r->nodes);
	if (r->ranges != r->sub.ranges)
		free(r->ranges);
	freelist_put(&t->spare_requests, r);
	aspace_maybe_free(t, as);
}

/* Forget a request: it left flight (or never held memory). */
void tracker_drop_request(struct uc_tracker *t, struct uc_request *r)
{
	if (t->on_end)
		t->on_end(t->end_arg, r);
	u64map_del(&t->requests, r->sub.seq);
	if ((uintptr_t)u64map_get(&t->by_req, r->sub.req) == r->sub.seq)
		u64map_del(&t->by_req, r->sub.req);
	request_free(t, r);
}

struct gone {
	uint32_t tgid;
	struct uc_request **list;
	size_t n;
};

static void collect_gone(uint64_t key, void *val, void *arg)
{
	struct uc_request *r = val;
	struct gone *g = arg;

	(void)key;
	if (r->as->tgid == g->tgid)
		g->list[g->n++] = r;
}

/*
 * The last thread of a process exited: its requests left flight with its
 * address space (the kernel cancels them, and the kernel side stops
 * tracking them: bpf/teardown.bpf.h); whether they were dropped was
 * judged at its teardown. A later process with the same tgid starts from
 * a fresh address space.
 */
void tracker_process_exit(struct uc_tracker *t, uint32_t tgid)
{
	struct uc_aspace *as = u64map_get(&t->aspaces, tgid);
	struct gone g = { .tgid = tgid };

	g.list = xmalloc((t->requests.count + 1) * sizeof(*g.list));
	u64map_each(&t->requests, collect_gone, &g);
	/* Requests without ranges first: dropping the last one with ranges
	 * may free an address space an exec left behind. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < g.n; i++)
			if (!g.list[i]->nr_nodes == !pass)
				tracker_drop_request(t, g.list[i]);
	free(g.list);
	if (as && u64map_del(&t->aspaces, tgid))
		aspace_maybe_free(t, as);
}

struct uc_request *tracker_submit(struct uc_tracker *t, const struct uc_submit *s)
{
	struct uc_request *r = freelist_get(&t->spare_requests, sizeof(*r)), *stale;
	uint32_t nr = s->nr_ranges;

	t->requests_seen++;
	r->sub = *s;
	stacks_ref(t->stacks, s->stack_id);
	r->as = aspace_get(t, s->hdr.tgid);
	r->ring = tracker_ring(t, s->ctx, s->hdr.tgid);

	/* Assemble the ranges: inline first, then continuation records. */
	r->ranges = r->sub.ranges;
	if (nr > s->nr_inline) {
		uint32_t have = s->nr_inline, more = 0;
		struct uc_range *extra = tracker_take_ranges(t, s->seq, &more);

		r->ranges = xmalloc(nr * sizeof(*r->ranges));
		memcpy(r->ranges, s->ranges, have * sizeof(*r->ranges));
		if (extra) {
			uint32_t n = more < nr - have ? more : nr - have;

			memcpy(r->ranges + have, extra, n * sizeof(*r->ranges));
			have += n;
			free(extra);
		}
		if (have < nr) {
			/* Lost under load: judge on what arrived, say so. */
			t->ranges_missing += nr - have;
			r->sub.nr_ranges = nr = have;
		}
	}

	if (s->flags & UC_SUB_DRAIN)
		r->ring->drain_epoch++;
	r->drain_epoch = r->ring->drain_epoch;

	if (s->direction != UC_DIR_NONE && nr) {
		r->nodes = nr == 1 ? &r->node_one : xcalloc(nr, sizeof(*r->nodes));
		for (uint32_t i = 0; i < nr; i++) {
			uint64_t start = r->ranges[i].addr;
			uint64_t end = start + r->ranges[i].len;

			if (!r->ranges[i].len)
				continue;
			if (end < start)	/* wraps: clamp to the top */
				end = UINT64_MAX;
			r->nodes[r->nr_nodes].start = start;
			r->nodes[r->nr_nodes].end = end;
			r->nodes[r->nr_nodes].owner = r;
			r->nr_nodes++;
		}
	}

	/* The kernel reuses a request only after it ended: if we still hold
	 * a request at this address its end event was lost. */
	stale = u64map_get(&t->requests, (uint64_t)(uintptr_t)
			   u64map_get(&t->by_req, s->req));
	if (stale && stale->sub.req == s->req) {
		t->missed_ends++;
		tracker_drop_request(t, stale);
	}
	if (!r->nr_nodes && !(s->flags & (UC_SUB_BUFFER_SELECT | UC_SUB_TAG_ONLY))) {
		/* Nothing to remember (a drain barrier): its DONE will
		 * simply find nothing. */
		request_free(t, r);
		return NULL;
	}
	return r;
}

void tracker_admit(struct uc_tracker *t, struct uc_request *r)
{
	u64map_put(&t->requests, r->sub.seq, r);
	/* A zero-copy send's request may be recycled while its notification
	 * still holds the buffer, so its address identifies nothing. */
	if (!(r->sub.flags & UC_SUB_ZC_NOTIF))
		u64map_put(&t->by_req, r->sub.req, (void *)(uintptr_t)r->sub.seq);

	/* A buffer-select request holds its range from the kernel's pick
	 * (tracker_hold()). */
	r->counted = true;
	r->as->inflight++;
}

void tracker_insert_ranges(struct uc_tracker *t, struct uc_request *r)
{
	(void)t;
	for (uint32_t i = 0; i < r->nr_nodes; i++)
		itree_insert(&r->as->ranges, &r->nodes[i]);
}

struct uc_range *tracker_take_ranges(struct uc_tracker *t, uint64_t seq,
				     uint32_t *nr)
{
	struct pending *p = u64map_del(&t->pending_ranges, seq);
	struct uc_range *r;

	if (!p) {
		*nr = 0;
		return NULL;
	}
	r = p->ranges;
	*nr = p->nr;
	free(p);
	return r;
}

void tracker_add_ranges(struct uc_tracker *t, const struct uc_ranges *c)
{
	struct pending *p = u64map_get(&t->pending_ranges, c->seq);
	uint32_t n = c->nr > UC_CHUNK_RANGES ? UC_CHUNK_RANGES : c->nr;

	if (!p) {
		p = xcalloc(1, sizeof(*p));
		u64map_put(&t->pending_ranges, c->seq, p);
	}
	p->ranges = xrealloc(p->ranges, (p->nr + n) * sizeof(*p->ranges));
	memcpy(p->ranges + p->nr, c->ranges, n * sizeof(*p->ranges));
	p->nr += n;
}

void tracker_done(struct uc_tracker *t, const struct uc_done *d)
{
	struct uc_request *r = u64map_get(&t->requests, d->seq);

	if (r)
		tracker_drop_request(t, r);
}

void tracker_ring_create(struct uc_tracker *t, const struct uc_ring_create *c)
{
	struct uc_ring *r = tracker_ring(t, c->ctx, c->hdr.tgid);

	r->tgid = c->hdr.tgid;
	if (c->fd >= 0) {
		/* A new ring, possibly at a freed ring's address. */
		r->fd = c->fd;
		free(r->bufs);
		r->bufs = NULL;
		r->nbufs = 0;
		r->drain_epoch = 0;
		stacks_unref(t->stacks, r->reg_stack_id);
		r->reg_stack_id = 0;
	}
	r->setup_flags = c->setup_flags;
}

void tracker_exec(struct uc_tracker *t, uint32_t tgid)
{
	struct uc_aspace *old = u64map_get(&t->aspaces, tgid);
	uint32_t gen = old ? old->generation + 1 : 1;

	aspace_new(t, tgid, gen);
	if (old)
		aspace_maybe_free(t, old);
}

void tracker_channel(struct uc_tracker *t, const struct uc_channel *c)
{
	struct uc_request *r = u64map_get(&t->requests, c->seq);

	if (r)
		r->channel = c->channel;
}

/*
 * The kernel runs @later only after @earlier finished when both sit on one
 * ring and either belong to the same IOSQE_IO_LINK/HARDLINK chain, or a
 * drain barrier separates them: a request with IOSQE_IO_DRAIN waits for
 * everything submitted before it, and everything after it waits for it.
 */
bool requests_ordered(const struct uc_request *earlier,
		      const struct uc_request *later)
{
	if (earlier->sub.ctx != later->sub.ctx)
		return false;
	if (earlier->sub.chain_seq && earlier->sub.chain_seq == later->sub.chain_seq)
		return true;
	if (later->drain_epoch > earlier->drain_epoch)
		return true;	/* a drain at or after earlier, up to later */
	return (earlier->sub.flags & UC_SUB_DRAIN) != 0;
}

/* ---- provided buffers ---------------------------------------------------- */

struct legacy_buf {
	uint64_t addr;
	uint32_t len;
};

static uint64_t legacy_key(uint16_t bgid, uint16_t bid)
{
	return (uint64_t)bgid << 16 | bid;
}

void tracker_provide(struct uc_tracker *t, const struct uc_provide *p)
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

bool tracker_legacy_buf(const struct uc_ring *ring, uint16_t bgid, uint16_t bid,
			uint64_t *addr, uint64_t *len)
{
	const struct legacy_buf *b;

	if (!ring->legacy_init)
		return false;
	b = u64map_get(&ring->legacy_bufs, legacy_key(bgid, bid));
	if (!b)
		return false;
	*addr = b->addr;
	*len = b->len;
	return true;
}

/* The request holds the provided buffer [start, end) from now on. */
void tracker_hold(struct uc_tracker *t, struct uc_request *r, uint64_t start, uint64_t end)
{
	(void)t;
	r->pick_node.start = start;
	r->pick_node.end = end;
	r->pick_node.owner = r;
	itree_insert(&r->as->ranges, &r->pick_node);
	r->pick_held = true;
}

/* The request no longer holds its buffer (its CQE, or it left flight). */
void tracker_release(struct uc_tracker *t, struct uc_request *r)
{
	(void)t;
	if (!r->pick_held)
		return;
	itree_remove(&r->as->ranges, &r->pick_node);
	r->pick_held = false;
}

static void legacy_free(struct uc_ring *ring)
{
	if (!ring->legacy_init)
		return;
	u64map_each(&ring->legacy_bufs, free_cb, NULL);
	u64map_free(&ring->legacy_bufs);
	ring->legacy_init = false;
}

/* ---- registered buffers ------------------------------------------------- */

void tracker_bufs_set(struct uc_ring *ring, uint32_t first, uint32_t nr,
		      const struct uc_range *r, uint32_t nr_r)
{
	if (first + nr < first || first + nr > (1u << 20))
		return;		/* the kernel caps tables far lower */
	if (first + nr > ring->nbufs) {
		ring->bufs = xrealloc(ring->bufs, (first + nr) * sizeof(*ring->bufs));
		memset(ring->bufs + ring->nbufs, 0,
		       (first + nr - ring->nbufs) * sizeof(*ring->bufs));
		ring->nbufs = first + nr;
	}
	for (uint32_t i = 0; i < nr; i++) {
		ring->bufs[first + i].addr = i < nr_r ? r[i].addr : 0;
		ring->bufs[first + i].len = i < nr_r ? r[i].len : 0;
		ring->bufs[first + i].released = false;
	}
}

void tracker_bufs_clear(struct uc_ring *ring)
{
	free(ring->bufs);
	ring->bufs = NULL;
	ring->nbufs = 0;
}

/* The stack of the call that registered the table (0: none now). */
void tracker_bufs_stack(struct uc_tracker *t, struct uc_ring *ring, uint64_t stack_id)
{
	stacks_unref(t->stacks, ring->reg_stack_id);
	ring->reg_stack_id = stack_id;
	stacks_ref(t->stacks, stack_id);
}

static void free_request_cb(uint64_t key, void *val, void *arg)
{
	struct uc_request *r = val;

	(void)key;
	(void)arg;
	if (r->nodes != &r->node_one)
		free(r->nodes);
	if (r->ranges != r->sub.ranges)
		free(r->ranges);
	free(r);
}

static void free_ring_cb(uint64_t key, void *val, void *arg)
{
	struct uc_ring *r = val;

	(void)key;
	(void)arg;
	free(r->bufs);
	legacy_free(r);
	free(r);
}

static void free_pending_cb(uint64_t key, void *val, void *arg)
{
	struct pending *p = val;

	(void)key;
	(void)arg;
	free(p->ranges);
	free(p);
}

void tracker_free(struct uc_tracker *t)
{
	u64map_each(&t->requests, free_request_cb, NULL);
	u64map_each(&t->rings, free_ring_cb, NULL);
	u64map_each(&t->pending_ranges, free_pending_cb, NULL);
	/* Address spaces replaced by exec and still draining are leaked
	 * here on purpose: the process is about to exit. */
	u64map_each(&t->aspaces, free_cb, NULL);
	u64map_free(&t->requests);
	u64map_free(&t->by_req);
	u64map_free(&t->rings);
	u64map_free(&t->pending_ranges);
	freelist_drain(&t->spare_requests);
	u64map_free(&t->aspaces);
}
