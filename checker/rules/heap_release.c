// SPDX-License-Identifier: GPL-2.0
/*
 * free-inflight (docs/hazards.md): a glibc malloc chunk given back while
 * an in-flight request holds bytes of it. The kernel side
 * (bpf/heap_release.bpf.h) sends each free, and each realloc that moved
 * or shrank its chunk, made while the process held memory in flight,
 * with the bytes given back as the chunk's header gives them; here they
 * are judged against the requests in flight at that moment, as an unmap
 * is (calls.c): a request that ended before the release is not in the
 * set any more, whether or not its CQE was reaped.
 *
 * Which processes are probed, and the notes about those that cannot be
 * judged (no glibc libc.so.6, another allocator), are the check mode's
 * (checker/heap_probes.c): this rule sees only the releases.
 *
 * A finding waits for its chunk's next owner (checker/heap_owner.c):
 * reported when an allocation hands the chunk out again before the
 * request ends (UC_EV_HEAP_ALLOC, its stack named), or at that end.
 *
 * A rule (rule.h): on_record for UC_EV_HEAP_RELEASE and UC_EV_HEAP_ALLOC,
 * on_end, finish; its state: the findings held (heap_owner.h).
 */
#include <stdlib.h>
#include <string.h>

#include "describe.h"
#include "heap_owner.h"
#include "rule.h"
#include "xalloc.h"
#include "../../reports/dedup.h"
#include "kinds/kind_reports.h"

#define HEAP_IS_MMAPPED	2	/* the chunk header's flag */

struct free_scan {
	struct heap_owner *owner;
	struct uc_check *ck;
	const struct uc_heap_release *h;
	const struct uc_request *last;
	uint64_t withheld;
	uint64_t held;
	bool fetched;
};

static void free_hit(struct itree_node *n, void *arg)
{
	struct free_scan *s = arg;
	const struct uc_heap_release *h = s->h;
	const struct uc_request *r = n->owner;
	struct uc_free_finding f;
	bool spans_loss;

	if (r == s->last)
		return;		/* one finding per request */
	s->last = r;
	if (evidence_judge(&s->ck->ev, r, &spans_loss) == UC_WITHHELD) {
		s->withheld++;
		return;
	}
	/* Its stack only now: a release that hits nothing (most of them)
	 * never reads the store. */
	if (!s->fetched)
		stacks_fetch(&s->ck->stacks, h->stack_id);
	s->fetched = true;
	memset(&f, 0, sizeof(f));
	f.tgid = h->hdr.tgid;
	f.tid = h->hdr.tid;
	f.how = h->how;
	f.chunk = h->chunk;
	f.usable = h->usable;
	f.mmapped = h->head & HEAP_IS_MMAPPED;
	f.rel_start = h->start;
	f.rel_end = h->end;
	f.new_ptr = h->new_ptr;
	f.start = n->start > h->start ? n->start : h->start;
	f.end = n->end < h->end ? n->end : h->end;
	f.free_stack_id = h->stack_id;
	f.spans_loss = spans_loss;
	describe_request(&f.req, r, n->start, n->end);
	f.key = uc_key_mix(uc_key_mix(1000 + h->how,
				      stacks_site_key(&s->ck->stacks, h->stack_id)),
			   stacks_site_key(&s->ck->stacks, r->sub.stack_id));
	if (heap_owner_hold(s->owner, s->ck, &f, r, h->watch))
		s->held++;
}

static void on_record(void *st, struct uc_check *ck, const struct uc_hdr *hdr)
{
	const struct uc_heap_release *h = (const void *)hdr;
	struct uc_aspace *as;
	struct free_scan s = { .owner = st, .ck = ck, .h = h };

	if (hdr->type == UC_EV_HEAP_ALLOC) {
		heap_owner_alloc(st, ck, (const struct uc_heap_alloc *)hdr);
		return;
	}
	if (hdr->type != UC_EV_HEAP_RELEASE)
		return;
	if (h->end > h->start) {
		evidence_refresh(&ck->ev, &ck->model);
		as = u64map_get(&ck->model.aspaces, h->hdr.tgid);
		if (as)
			itree_query(&as->ranges, h->start, h->end, free_hit, &s);
		report_withheld(ck->report, UC_KIND_FREE_INFLIGHT, s.withheld);
	}
	/* Most releases hit nothing: their watch is given back at once
	 * (once: a slot given back may be armed again at once). */
	if (!s.held)
		heap_owner_unused(st, ck, h->watch);
}

static void *init(struct uc_check *ck)
{
	(void)ck;
	return xcalloc(1, sizeof(struct heap_owner));
}

static void on_end(void *st, struct uc_check *ck, const struct uc_request *r)
{
	heap_owner_end(st, ck, r);
}

static void finish(void *st, struct uc_check *ck)
{
	heap_owner_flush(st, ck);
}

static void rule_free(void *st, struct uc_check *ck)
{
	heap_owner_free(st, ck);
	free(st);
}

const struct uc_check_rule uc_rule_heap_release = {
	.name = "heap_release",
	.init = init,
	.on_end = on_end,
	.on_record = on_record,
	.finish = finish,
	.free = rule_free,
};
