// SPDX-License-Identifier: GPL-2.0
/*
 * stack-inflight (docs/hazards.md): a thread's stack pointer, seen at a
 * system call's entry or a signal's delivery, above bytes of its own
 * stack that one of its in-flight requests holds. The kernel side
 * (bpf/stack_frames.bpf.h) flags each request with a range in the
 * submitting thread's own stack mapping (UC_SUB_STACK) and sends a
 * UC_EV_FRAME_GONE when that thread's stack pointer rose above the
 * lowest such range, in that mapping and not on its sigaltstack; here
 * it is judged against the requests in flight at that moment: a request
 * that ended before (CQE reaped or not) is not in the set any more.
 *
 * Only the thread's own requests count: another thread's stack pointer
 * says nothing about this thread's frames. Bytes within the red zone
 * under the stack pointer (UC_RED_ZONE) may still be a leaf's: only
 * those below it are in no live frame.
 *
 * A rule (rule.h): on_record for UC_EV_FRAME_GONE; no state of its own
 * (a request reported once carries frame_told).
 */
#include <string.h>

#include "describe.h"
#include "rule.h"
#include "../../reports/dedup.h"
#include "kinds/kind_reports.h"

struct frame_scan {
	struct uc_check *ck;
	const struct uc_frame_gone *g;
	uint64_t withheld;
	bool fetched;
};

static void frame_hit(struct itree_node *n, void *arg)
{
	struct frame_scan *s = arg;
	const struct uc_frame_gone *g = s->g;
	struct uc_request *r = n->owner;
	struct uc_stack_finding f;
	uint64_t below = g->sp - UC_RED_ZONE;
	bool spans_loss;

	if (r->frame_told || !(r->sub.flags & UC_SUB_STACK) ||
	    r->sub.hdr.tid != g->hdr.tid || n == &r->pick_node)
		return;
	if (evidence_judge(&s->ck->ev, r, &spans_loss) == UC_WITHHELD) {
		s->withheld++;
		return;
	}
	r->frame_told = true;	/* one finding per request */
	/* Its stack only now: most observations find every request ended. */
	if (!s->fetched)
		stacks_fetch(&s->ck->stacks, g->stack_id);
	s->fetched = true;
	memset(&f, 0, sizeof(f));
	f.tgid = g->hdr.tgid;
	f.tid = g->hdr.tid;
	f.sp = g->sp;
	f.lo = g->lo;
	f.hi = g->hi;
	f.where = g->where;
	f.nr = g->nr;
	f.start = n->start > g->lo ? n->start : g->lo;
	f.end = n->end < below ? n->end : below;
	f.seen_stack_id = g->stack_id;
	f.spans_loss = spans_loss;
	describe_request(&f.req, r, n->start, n->end);
	f.key = uc_key_mix(uc_key_mix(2000 + g->where,
				      stacks_site_key(&s->ck->stacks, g->stack_id)),
			   stacks_site_key(&s->ck->stacks, r->sub.stack_id));
	report_stack_inflight(s->ck->report, &f);
}

static void on_record(void *st, struct uc_check *ck, const struct uc_hdr *hdr)
{
	const struct uc_frame_gone *g = (const void *)hdr;
	struct uc_aspace *as;
	struct frame_scan s = { .ck = ck, .g = g };

	if (hdr->type != UC_EV_FRAME_GONE || g->sp < g->lo + UC_RED_ZONE ||
	    g->sp > g->hi)
		return;
	evidence_refresh(&ck->ev, &ck->model);
	as = u64map_get(&ck->model.aspaces, g->hdr.tgid);
	if (as)
		itree_query(&as->ranges, g->lo, g->sp - UC_RED_ZONE, frame_hit, &s);
	report_withheld(ck->report, UC_KIND_STACK_INFLIGHT, s.withheld);
}

const struct uc_check_rule uc_rule_stack_frames = {
	.name = "stack_frames",
	.on_record = on_record,
};
