// SPDX-License-Identifier: GPL-2.0
/*
 * pbuf-reprovided (docs/hazards.md): at the CQE that hands a provided
 * buffer back to the program, the kernel side saw the program put the
 * buffer's memory back in the buffer ring before that CQE
 * (UC_PICK_REPROVIDED), while something could pick the second copy.
 *
 * What a buffer-select request holds, and when, is the model's
 * (tracker_hold(), dispatch.c: on_pick()); the overlap rule judges the
 * held buffer as any other range.
 */
#include <stdlib.h>

#include "rule.h"
#include "describe.h"
#include "kinds/kind_reports.h"
#include "../../reports/dedup.h"

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
static bool pickable(struct uc_check *ck, const struct uc_request *r,
		     const struct uc_pick *p)
{
	struct picker_scan s = { .holder = r };

	if (p->flags & UC_PICK_MORE)
		return true;
	u64map_each(&ck->model.requests, find_picker, &s);
	return s.found;
}

static void report_reprovided(struct uc_check *ck, struct uc_request *r,
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
	f.key = uc_key_mix(uc_key_mix(0, stacks_site_key(&ck->stacks, r->sub.stack_id)),
			   (uint64_t)p->bgid << 8 | r->sub.opcode);
	if (!r->sub.stack_id)
		f.key = uc_key_mix(f.key, r->as->tgid);
	report_pbuf_reprovided(ck->report, &f);
}

static void on_pick(void *st, struct uc_check *ck, struct uc_request *r,
		    const struct uc_pick *p, uint64_t start, uint64_t end)
{
	if (p->flags & UC_PICK_HELD)
		return;		/* judged at its CQE */
	if ((p->flags & UC_PICK_REPROVIDED) && pickable(ck, r, p))
		report_reprovided(ck, r, p, start, end);
}

const struct uc_check_rule uc_rule_provided_buffers = {
	.name = "provided_buffers",
	.on_pick = on_pick,
};
