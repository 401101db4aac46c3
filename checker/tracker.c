// SPDX-License-Identifier: GPL-2.0
#include "tracker.h"

#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "heap_rule.h"
#include "xalloc.h"
#include "../reports/dedup.h"
#include "kinds/kind_reports.h"

struct pending {
	struct uc_range *ranges;
	uint32_t nr;
};

void tracker_init(struct uc_tracker *t, struct uc_report *report)
{
	memset(t, 0, sizeof(*t));
	u64map_init(&t->aspaces);
	u64map_init(&t->rings);
	u64map_init(&t->requests);
	u64map_init(&t->by_req);
	u64map_init(&t->pending_ranges);
	u64map_init(&t->calls);
	u64map_init(&t->teardowns);
	u64map_init(&t->pending_execs);
	u64map_init(&t->by_user_data);
	t->report = report;
	evidence_init(&t->ev, NULL);
	stacks_init(&t->stacks);
	report->print_stack = stacks_print;
	report->stack_frames = stacks_frames;
	report->stack_ctx = &t->stacks;
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
	pbuf_release(t, r);
	if (r->counted)
		as->inflight--;
	stacks_unref(&t->stacks, r->sub.stack_id);
	free(r->nodes);
	if (r->ranges != r->sub.ranges)
		free(r->ranges);
	free(r);
	aspace_maybe_free(t, as);
}

/* Forget a request: it left flight (or never held memory). */
void tracker_drop_request(struct uc_tracker *t, struct uc_request *r)
{
	user_data_forget(t, r);
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
static void on_process_exit(struct uc_tracker *t, uint32_t tgid)
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

static void on_submit(struct uc_tracker *t, const struct uc_submit *s)
{
	struct uc_request *r = xcalloc(1, sizeof(*r)), *stale;
	uint32_t nr = s->nr_ranges;

	t->requests_seen++;
	r->sub = *s;
	stacks_ref(&t->stacks, s->stack_id);
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
		r->nodes = xcalloc(nr, sizeof(*r->nodes));
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
		return;
	}
	/* Ends lost before this record are applied before judging it. */
	evidence_refresh(t);
	evidence_mark(t, r);
	u64map_put(&t->requests, s->seq, r);
	/* A zero-copy send's request may be recycled while its notification
	 * still holds the buffer, so its address identifies nothing. */
	if (!(s->flags & UC_SUB_ZC_NOTIF))
		u64map_put(&t->by_req, s->req, (void *)(uintptr_t)s->seq);

	/* A buffer-select request holds its range from the kernel's pick:
	 * provided_buffers.c judges it then. */
	r->counted = true;
	r->as->inflight++;
	user_data_check(t, r);
	if (!r->nr_nodes)
		return;
	overlap_check(t, r);
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

static void on_ranges(struct uc_tracker *t, const struct uc_ranges *c)
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

static void on_done(struct uc_tracker *t, const struct uc_done *d)
{
	struct uc_request *r = u64map_get(&t->requests, d->seq);

	if (r)
		tracker_drop_request(t, r);
}

static void on_ring_create(struct uc_tracker *t, const struct uc_ring_create *c)
{
	struct uc_ring *r = tracker_ring(t, c->ctx, c->hdr.tgid);

	stacks_process_seen(&t->stacks, c->hdr.tgid);
	r->tgid = c->hdr.tgid;
	if (c->fd >= 0) {
		/* A new ring, possibly at a freed ring's address. */
		r->fd = c->fd;
		free(r->bufs);
		r->bufs = NULL;
		r->nbufs = 0;
		r->drain_epoch = 0;
		stacks_unref(&t->stacks, r->reg_stack_id);
		r->reg_stack_id = 0;
	}
	r->setup_flags = c->setup_flags;
}

static void on_exec(struct uc_tracker *t, const struct uc_proc *p)
{
	struct uc_aspace *old = u64map_get(&t->aspaces, p->hdr.tgid);
	uint32_t gen = old ? old->generation + 1 : 1;

	teardown_exec_result(t, p->hdr.tgid, true);
	aspace_new(t, p->hdr.tgid, gen);
	if (old)
		aspace_maybe_free(t, old);
	stacks_process_changed(&t->stacks, p->hdr.tgid, 0);
}

static void on_reap_lag(struct uc_tracker *t, const struct uc_reap_lag *l)
{
	struct uc_ring *ring = u64map_get(&t->rings, l->ctx);
	struct uc_reap_lag_finding f = {
		.tgid = l->hdr.tgid,
		.ring_fd = ring ? ring->fd : -1,
		.user_data = l->user_data,
		.lag_ns = l->lag_ns,
		.lag_min_ns = l->lag_min_ns,
		.threshold_ns = t->reap_lag_ns,
		.pending = l->pending,
		.reap_stack_id = l->reap_stack_id,
		.blocked_nr = l->blocked_nr,
		.blocked_tid = l->blocked_tid,
		.blocked_ns = l->blocked_ns,
	};

	stacks_ref(&t->stacks, l->reap_stack_id);
	/* One report per reap site, or per ring when there is no site. */
	f.key = stacks_site_key(&t->stacks, l->reap_stack_id);
	if (!f.key)
		f.key = uc_key_mix(l->hdr.tgid, l->ctx);
	report_reap_lag(t->report, &f);
	stacks_unref(&t->stacks, l->reap_stack_id);
}

void tracker_event(struct uc_tracker *t, const void *data, size_t size)
{
	const struct uc_hdr *h = data;

	t->events++;
	evidence_on_record(t);
	if (!(t->events & 63))
		stacks_rescue(&t->stacks);
	if (size < sizeof(*h))
		goto bad;
	switch (h->type) {
	case UC_EV_SUBMIT: {
		/* Sent without the inline range slots it does not use. */
		const size_t fixed = offsetof(struct uc_submit, ranges);
		const struct uc_submit *s = data;
		struct uc_submit full = { 0 };

		if (size < fixed || s->nr_inline > UC_INLINE_RANGES ||
		    size < fixed + s->nr_inline * sizeof(struct uc_range))
			goto bad;
		memcpy(&full, data, size < sizeof(full) ? size : sizeof(full));
		stacks_fetch(&t->stacks, full.stack_id);
		on_submit(t, &full);
		break;
	}
	case UC_EV_RANGES:
		if (size < sizeof(struct uc_ranges))
			goto bad;
		on_ranges(t, data);
		break;
	case UC_EV_DONE:
		if (size < sizeof(struct uc_done))
			goto bad;
		on_done(t, data);
		break;
	case UC_EV_RING_CREATE:
		if (size < sizeof(struct uc_ring_create))
			goto bad;
		on_ring_create(t, data);
		heap_rule_process(t, h->tgid);
		break;
	case UC_EV_EXEC:
		on_exec(t, data);
		break;
	case UC_EV_CALL:
		if (size < sizeof(struct uc_call))
			goto bad;
		stacks_fetch(&t->stacks, ((const struct uc_call *)data)->stack_id);
		calls_on_call(t, data);
		break;
	case UC_EV_CALL_RET:
		if (size < sizeof(struct uc_call_ret))
			goto bad;
		if (((const struct uc_call_ret *)data)->nr == UC_NR_EXECVE ||
		    ((const struct uc_call_ret *)data)->nr == UC_NR_EXECVEAT)
			teardown_exec_result(t, h->tgid, false);
		else
			calls_on_ret(t, data);
		break;
	case UC_EV_REGISTER:
		if (size < sizeof(struct uc_register))
			goto bad;
		calls_on_register(t, data);
		break;
	case UC_EV_DROPPED:
		if (size < sizeof(struct uc_dropped))
			goto bad;
		stacks_fetch(&t->stacks, ((const struct uc_dropped *)data)->stack_id);
		teardown_on_dropped(t, data);
		break;
	case UC_EV_UNREAPED:
		if (size < sizeof(struct uc_unreaped))
			goto bad;
		teardown_on_unreaped(t, data);
		break;
	case UC_EV_TEARDOWN:
		if (size < sizeof(struct uc_teardown))
			goto bad;
		teardown_on_teardown(t, data);
		break;
	case UC_EV_REAP_LAG:
		if (size < sizeof(struct uc_reap_lag))
			goto bad;
		stacks_fetch(&t->stacks, ((const struct uc_reap_lag *)data)->reap_stack_id);
		on_reap_lag(t, data);
		break;
	case UC_EV_PICK:
		if (size < sizeof(struct uc_pick))
			goto bad;
		pbuf_on_pick(t, data);
		break;
	case UC_EV_PROVIDE:
		if (size < sizeof(struct uc_provide))
			goto bad;
		pbuf_on_provide(t, data);
		break;
	case UC_EV_CHANNEL: {
		const struct uc_channel *c = data;
		struct uc_request *r;

		if (size < sizeof(*c))
			goto bad;
		r = u64map_get(&t->requests, c->seq);
		if (r)
			r->channel = c->channel;
		break;
	}
	case UC_EV_HEAP_RELEASE:
		if (size < sizeof(struct uc_heap_release))
			goto bad;
		heap_on_release(t, data);
		break;
	case UC_EV_MAPPING:
		if (size < sizeof(struct uc_vma_record))
			goto bad;
		stacks_on_mapping(&t->stacks, data);
		break;
	case UC_EV_EXIT:
		stacks_process_changed(&t->stacks, h->tgid, 1);
		on_process_exit(t, h->tgid);
		break;
	case UC_EV_FORK:
		stacks_process_forked(&t->stacks, ((const struct uc_proc *)data)->parent_tgid,
				      h->tgid);
		break;
	default:
		goto bad;
	}
	return;
bad:
	t->malformed++;
}

static void free_request_cb(uint64_t key, void *val, void *arg)
{
	struct uc_request *r = val;

	(void)key;
	(void)arg;
	free(r->nodes);
	if (r->ranges != r->sub.ranges)
		free(r->ranges);
	free(r);
}

static void free_cb(uint64_t key, void *val, void *arg)
{
	(void)key;
	(void)arg;
	free(val);
}

static void free_ring_cb(uint64_t key, void *val, void *arg)
{
	struct uc_ring *r = val;

	(void)key;
	(void)arg;
	free(r->bufs);
	pbuf_ring_free(r);
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
	calls_free(t);
	teardown_free(t);
	u64map_each(&t->pending_ranges, free_pending_cb, NULL);
	/* Address spaces replaced by exec and still draining are leaked
	 * here on purpose: the process is about to exit. */
	u64map_each(&t->aspaces, free_cb, NULL);
	evidence_free(&t->ev);
	u64map_free(&t->by_user_data);
	user_data_free();
	u64map_free(&t->requests);
	u64map_free(&t->by_req);
	u64map_free(&t->rings);
	u64map_free(&t->pending_ranges);
	u64map_free(&t->aspaces);
	stacks_free(&t->stacks);
}
