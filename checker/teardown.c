// SPDX-License-Identifier: GPL-2.0
/*
 * dropped and unreaped-cqe (docs/hazards.md): the kernel side sends, at
 * the start of a teardown, one record per request still in flight and one
 * per ring with CQEs the program never consumed, then a UC_EV_TEARDOWN
 * that closes the set. Requests are grouped by where they came from, like
 * a leak checker at exit.
 */
#include <stdlib.h>
#include <string.h>

#include "tracker.h"
#include "xalloc.h"
#include "../reports/dedup.h"
#include "../reports/report.h"

struct td_records {
	struct uc_dropped *dropped;
	size_t ndropped;
	struct uc_unreaped *unreaped;
	size_t nunreaped;
};

static struct td_records *records(struct uc_tracker *t, uint64_t id)
{
	struct td_records *r = u64map_get(&t->teardowns, id);

	if (!r) {
		r = xcalloc(1, sizeof(*r));
		u64map_put(&t->teardowns, id, r);
	}
	return r;
}

void teardown_on_dropped(struct uc_tracker *t, const struct uc_dropped *d)
{
	struct td_records *r = records(t, d->teardown);

	r->dropped = xrealloc(r->dropped, (r->ndropped + 1) * sizeof(*d));
	r->dropped[r->ndropped++] = *d;
}

void teardown_on_unreaped(struct uc_tracker *t, const struct uc_unreaped *u)
{
	struct td_records *r = records(t, u->teardown);

	r->unreaped = xrealloc(r->unreaped, (r->nunreaped + 1) * sizeof(*u));
	r->unreaped[r->nunreaped++] = *u;
}

static int ring_fd(struct uc_tracker *t, uint64_t ctx)
{
	struct uc_ring *ring = u64map_get(&t->rings, ctx);

	return ring ? ring->fd : -1;
}

#define SITE_FRAMES 16

/* A submit site: the opcode, the ring, and the unwound call chain (empty
 * when no stack was captured). */
struct site {
	uint64_t pcs[SITE_FRAMES];
	int npcs;
};

static void group(struct uc_tracker *t, const struct td_records *r,
		  struct uc_dropped_finding *f)
{
	struct site *sites = xcalloc(r->ndropped ? r->ndropped : 1, sizeof(*sites));

	f->groups = xcalloc(r->ndropped ? r->ndropped : 1, sizeof(*f->groups));
	for (size_t i = 0; i < r->ndropped; i++) {
		const struct uc_dropped *d = &r->dropped[i];
		int fd = ring_fd(t, d->ctx);
		struct uc_dropped_group *g = NULL;
		struct site here = { 0 };

		here.npcs = stacks_pcs(&t->stacks, d->stack_id, here.pcs, SITE_FRAMES);
		for (uint32_t k = 0; k < f->ngroups; k++)
			if (f->groups[k].opcode == d->opcode && f->groups[k].ring_fd == fd &&
			    sites[k].npcs == here.npcs &&
			    !memcmp(sites[k].pcs, here.pcs, here.npcs * sizeof(uint64_t)))
				g = &f->groups[k];
		if (!g) {
			sites[f->ngroups] = here;
			g = &f->groups[f->ngroups++];
			g->opcode = d->opcode;
			g->ring_fd = fd;
			g->oldest_ts = d->submit_ts;
			g->stack_id = d->stack_id;
		}
		if (g->count < 4)
			g->user_data[g->count] = d->user_data;
		if (d->submit_ts < g->oldest_ts)
			g->oldest_ts = d->submit_ts;
		g->count++;
		f->total++;
	}
	free(sites);
}

void teardown_on_teardown(struct uc_tracker *t, const struct uc_teardown *td)
{
	struct td_records *r = u64map_del(&t->teardowns, td->id);

	if (!r)
		return;
	if (r->ndropped) {
		struct uc_dropped_finding f = {
			.tgid = td->hdr.tgid, .reason = td->reason, .detail = td->detail,
			.ring_fd = td->ctx ? ring_fd(t, td->ctx) : -1,
			.teardown_ts = td->hdr.ts,
		};

		group(t, r, &f);
		/* The same sites dropping again (another process, another run of
		 * a loop) is the same leak. */
		f.key = uc_key_mix(0, td->reason);
		for (uint32_t g = 0; g < f.ngroups; g++)
			f.key = uc_key_mix(uc_key_mix(f.key, f.groups[g].opcode),
					   stacks_site_key(&t->stacks, f.groups[g].stack_id));
		report_dropped(t->report, &f);
		free(f.groups);
	}
	for (size_t i = 0; i < r->nunreaped; i++) {
		struct uc_unreaped_finding f = {
			.tgid = td->hdr.tgid, .reason = td->reason,
			.ring_fd = ring_fd(t, r->unreaped[i].ctx),
			.ready = r->unreaped[i].ready,
			.overflowed = r->unreaped[i].overflowed,
		};

		report_unreaped(t->report, &f);
	}
	free(r->dropped);
	free(r->unreaped);
	free(r);
}

static void free_td_cb(uint64_t key, void *val, void *arg)
{
	struct td_records *r = val;

	(void)key;
	(void)arg;
	free(r->dropped);
	free(r->unreaped);
	free(r);
}

void teardown_free(struct uc_tracker *t)
{
	u64map_each(&t->teardowns, free_td_cb, NULL);
	u64map_free(&t->teardowns);
}
