// SPDX-License-Identifier: GPL-2.0
/*
 * Hazard 1, overlapping in-flight buffers (docs/hazards.md):
 * two requests in flight at once in one address space whose ranges share
 * a byte, at least one of them a sink, and not ordered by the kernel
 * (a link chain, a drain) or by the data flow through a pipe (pipe_fed).
 *
 * A rule (rule.h): on_submit for each new request, before its ranges
 * join the set; on_pick for a provided buffer it comes to hold.
 */
#include <string.h>

#include "rule.h"
#include "kinds/kind_reports.h"
#include "describe.h"
#include "../../reports/dedup.h"

struct overlap_scan {
	struct uc_check *ck;
	struct uc_request *r;
	uint64_t qstart, qend;		/* the new request's range */
	/* requests already reported against r: one finding per pair */
	const struct uc_request *seen[16];
	unsigned int nseen;
};

static bool pair_seen(struct overlap_scan *s, const struct uc_request *h)
{
	for (unsigned int i = 0; i < s->nseen; i++)
		if (s->seen[i] == h)
			return true;
	return false;
}

/*
 * A write and a read of the same bytes through one pipe, ordered by the
 * data flow (hazards.md section 1): the read can only store what the write
 * already copied out of those bytes. @h is in flight, @r new. Narrow:
 *  - the read new, the write submitted before it and never seen waiting
 *    (no channel record: a pipe write that did not wait copied all it
 *    wrote at its issue, before the read was submitted; one that waits
 *    on a full pipe copied nothing yet, and the read gets older bytes);
 *  - the write new, the read submitted before it and waiting on that
 *    pipe (its poll armed on an empty pipe, or blocked in io-wq): it gets
 *    the write's bytes.
 * Another writer of the same pipe at the same time is not modelled.
 */
static bool pipe_fed(struct uc_check *ck, const struct uc_request *h,
		     const struct uc_request *r)
{
	if (!r->sub.pipe || r->sub.pipe != h->sub.pipe)
		return false;
	if (r->sub.direction == UC_DIR_SINK && h->sub.direction == UC_DIR_SOURCE)
		return !h->channel && !evidence_lost_since(&ck->ev, h);
	if (r->sub.direction == UC_DIR_SOURCE && h->sub.direction == UC_DIR_SINK)
		return h->channel == h->sub.pipe;
	return false;
}

static void on_hit(struct itree_node *n, void *arg)
{
	struct overlap_scan *s = arg;
	const struct uc_request *h = n->owner, *r = s->r;
	struct uc_overlap_finding f;
	bool spans_loss;

	if (h == r)
		return;
	if (h->sub.direction != UC_DIR_SINK && r->sub.direction != UC_DIR_SINK)
		return;		/* two sources: broadcasting one buffer is fine */
	if (requests_ordered(h, r) || pipe_fed(s->ck, h, r))
		return;
	if (pair_seen(s, h))
		return;
	if (s->nseen < sizeof(s->seen) / sizeof(s->seen[0]))
		s->seen[s->nseen++] = h;
	/* Events lost since h was submitted may hide its end (or, for a
	 * provided buffer h held, the CQE that gave it back). */
	if (evidence_judge(&s->ck->ev, h, &spans_loss) == UC_WITHHELD ||
	    evidence_pick_doubtful(&s->ck->ev, n)) {
		report_withheld(s->ck->report, UC_KIND_OVERLAP, 1);
		return;
	}

	memset(&f, 0, sizeof(f));
	f.tgid = r->as->tgid;
	f.start = n->start > s->qstart ? n->start : s->qstart;
	f.end = n->end < s->qend ? n->end : s->qend;
	describe_request(&f.inflight, h, n->start, n->end);
	describe_request(&f.incoming, r, s->qstart, s->qend);
	f.spans_loss = spans_loss;
	{
		uint64_t a = stacks_site_key(&s->ck->stacks, h->sub.stack_id);
		uint64_t b = stacks_site_key(&s->ck->stacks, r->sub.stack_id);

		/* Without stacks, one finding per process and opcode pair:
		 * a hundred identical stackless reports help nobody. */
		f.key = uc_key_mix(uc_key_mix(uc_key_mix(0, a), b),
				   h->sub.opcode << 8 | r->sub.opcode);
		if (!a && !b)
			f.key = uc_key_mix(f.key, r->as->tgid);
	}
	report_overlap(s->ck->report, &f);
}

static void on_submit(void *st, struct uc_check *ck, struct uc_request *r)
{
	struct overlap_scan s = { .ck = ck, .r = r };

	for (uint32_t i = 0; i < r->nr_nodes; i++) {
		s.qstart = r->nodes[i].start;
		s.qend = r->nodes[i].end;
		itree_query(&r->as->ranges, s.qstart, s.qend, on_hit, &s);
	}
}

/* A provided buffer: judged when it comes to be held, or at its CQE
 * unless it was while held. */
static void on_pick(void *st, struct uc_check *ck, struct uc_request *r,
		    const struct uc_pick *p, uint64_t start, uint64_t end)
{
	struct overlap_scan s = { .ck = ck, .r = r, .qstart = start, .qend = end };

	if (tracker_holds(r, start, end))
		return;
	itree_query(&r->as->ranges, start, end, on_hit, &s);
}

const struct uc_check_rule uc_rule_overlap = {
	.name = "overlap",
	.on_submit = on_submit,
	.on_pick = on_pick,
};
