// SPDX-License-Identifier: GPL-2.0
/*
 * Teardowns (docs/hazards.md §4). At the start of one (exit, exec, a
 * fatal signal, the close of a ring's last descriptor) the kernel side
 * sends a record per request still in flight and one per ring with its
 * completion side, then a UC_EV_TEARDOWN that closes the set. From them:
 *  - left-in-flight (a warning): requests the kernel is about to cancel,
 *    grouped by where they came from like a leak checker at exit, those
 *    holding no memory only counted, and the CQEs never consumed;
 *  - dropped (an error): what the kernel itself threw away on a ring
 *    (SQEs seen discarded inside its io_uring_enter calls, never the
 *    shared sq_dropped the program may write; cq_overflow), whenever a
 *    teardown finds it risen.
 * An exec's teardown is kept until the exec is known to have succeeded.
 *
 * A rule (rule.h): on_record takes the three records, on_exec an exec's
 * result; the records so far, what each ring's teardowns told and the
 * pending execs are its own state.
 */
#include <stdlib.h>
#include <string.h>

#include "rule.h"
#include "xalloc.h"
#include "../../reports/dedup.h"
#include "kinds/kind_reports.h"

/* The rule's state. */
struct td_rule {
	struct u64map teardowns;	/* teardown id -> records so far */
	struct u64map rings;		/* ctx -> struct td_ring */
	struct u64map pending_execs;	/* tgid -> left-in-flight finding of
					 * an exec not known to succeed yet */
};

struct td_records {
	struct uc_dropped *dropped;
	size_t ndropped;
	struct uc_unreaped *rings;
	size_t nrings;
};

static struct td_records *records(struct td_rule *st, uint64_t id)
{
	struct td_records *r = u64map_get(&st->teardowns, id);

	if (!r) {
		r = xcalloc(1, sizeof(*r));
		u64map_put(&st->teardowns, id, r);
	}
	return r;
}

static void on_dropped(struct td_rule *st, const struct uc_dropped *d)
{
	struct td_records *r = records(st, d->teardown);

	r->dropped = xrealloc(r->dropped, (r->ndropped + 1) * sizeof(*d));
	r->dropped[r->ndropped++] = *d;
}

static void on_unreaped(struct td_rule *st, const struct uc_unreaped *u)
{
	struct td_records *r = records(st, u->teardown);

	r->rings = xrealloc(r->rings, (r->nrings + 1) * sizeof(*u));
	r->rings[r->nrings++] = *u;
}

/* What earlier teardowns of a ring told already (an exec keeps the ring;
 * a ring made at a freed one's address keeps them too, as the model's
 * ring does). */
struct td_ring {
	uint32_t sq_dropped_told, cq_overflow_told;
	uint32_t sq_shared_told;	/* the shared counter's rise told */
	uint32_t cq_mark;		/* CQ positions before it were told */
	bool cq_mark_set;
};

static struct td_ring *told(struct td_rule *st, uint64_t ctx)
{
	struct td_ring *m = u64map_get(&st->rings, ctx);

	if (!m) {
		m = xcalloc(1, sizeof(*m));
		u64map_put(&st->rings, ctx, m);
	}
	return m;
}

static int ring_fd(struct uc_check *ck, uint64_t ctx)
{
	struct uc_ring *ring = u64map_get(&ck->model.rings, ctx);

	return ring ? ring->fd : -1;
}

/* User memory request @seq holds, from the model (0 if it has none). */
static uint64_t request_bytes(struct uc_check *ck, uint64_t seq)
{
	struct uc_request *req = u64map_get(&ck->model.requests, seq);
	uint64_t n = 0;

	for (uint32_t i = 0; req && i < req->sub.nr_ranges; i++)
		n += req->ranges[i].len;
	return n;
}

#define SITE_FRAMES 16

/* A submit site: the unwound call chain (empty when none was captured). */
struct site {
	uint64_t pcs[SITE_FRAMES];
	int npcs;
};

static void count_nomem(struct uc_left_finding *f, uint8_t opcode)
{
	uint32_t i;

	f->nomem++;
	for (i = 0; i < f->nnomem_ops; i++)
		if (f->nomem_ops[i].opcode == opcode)
			break;
	if (i == f->nnomem_ops) {
		if (i == UC_LEFT_NOMEM_OPS)
			return;		/* shown as "..." */
		/* Kept in opcode order: the same teardown reads the same. */
		while (i && f->nomem_ops[i - 1].opcode > opcode) {
			f->nomem_ops[i] = f->nomem_ops[i - 1];
			i--;
		}
		f->nomem_ops[i] = (struct uc_left_nomem){ .opcode = opcode };
		f->nnomem_ops++;
	}
	f->nomem_ops[i].count++;
}

/* Requests that hold memory by (opcode, ring, submit site); the rest
 * counted per opcode. */
static void group(struct uc_check *ck, const struct td_records *r,
		  struct uc_left_finding *f)
{
	struct site *sites = xcalloc(r->ndropped ? r->ndropped : 1, sizeof(*sites));

	f->groups = xcalloc(r->ndropped ? r->ndropped : 1, sizeof(*f->groups));
	for (size_t i = 0; i < r->ndropped; i++) {
		const struct uc_dropped *d = &r->dropped[i];
		int fd = ring_fd(ck, d->ctx);
		struct uc_left_group *g = NULL;
		struct site here = { 0 };

		if (!d->holds_mem) {
			count_nomem(f, d->opcode);
			continue;
		}
		here.npcs = stacks_pcs(&ck->stacks, d->stack_id, here.pcs, SITE_FRAMES);
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
			stacks_ref(&ck->stacks, d->stack_id);
		}
		if (g->count < 4)
			g->user_data[g->count] = d->user_data;
		if (d->submit_ts < g->oldest_ts)
			g->oldest_ts = d->submit_ts;
		g->bytes += request_bytes(ck, d->seq);
		g->count++;
		f->held++;
	}
	free(sites);
}

/*
 * A ring's completion side: the CQEs never consumed go into @f; what the
 * kernel dropped is its own finding. Counts already told at an earlier
 * teardown of the same ring (an exec keeps the ring) are not told again.
 */
static void ring_state(struct td_rule *st, struct uc_check *ck, const struct uc_unreaped *u,
		       struct uc_left_finding *f)
{
	struct uc_ring *ring = tracker_ring(&ck->model, u->ctx, u->hdr.tgid);
	struct td_ring *m = told(st, u->ctx);
	int32_t ready = (int32_t)(u->cq_tail - u->cq_head);

	if (ready < 0) {
		/* The program advanced its head past the tail: it "consumed"
		 * completions that were never posted (a test bug seen in the
		 * wild), not 4 billion unconsumed ones. */
		f->head_past_tail += (uint32_t)-ready;
		ready = 0;
	} else if (m->cq_mark_set && (int32_t)(m->cq_mark - u->cq_head) > 0) {
		/* Up to the mark: told at the last teardown (with the
		 * cancellations it caused). */
		ready = (int32_t)(u->cq_tail - m->cq_mark);
		if (ready < 0)
			ready = 0;
	}
	/* Which CQEs: those the BPF side read from the head, unless the head
	 * is behind what an earlier teardown told. */
	if (ready && !(m->cq_mark_set && (int32_t)(m->cq_mark - u->cq_head) > 0))
		for (uint32_t i = 0; i < u->ncqes && i < UC_UNREAPED_SHOWN &&
		     f->ncqes < UC_LEFT_CQES_SHOWN; i++)
			f->cqes[f->ncqes++] = (struct uc_left_cqe){
				.user_data = u->cqes[i].user_data,
				.res = u->cqes[i].res,
				.opcode = (int16_t)u->cqes[i].opcode1 - 1,
			};
	f->unconsumed += ready + u->overflowed;
	f->overflowed += u->overflowed;
	f->overflow_capped |= u->overflow_capped;

	/* A count no program reaches means the counters were not where the
	 * ring's io_rings was (seen after IORING_REGISTER_RESIZE_RINGS): no
	 * verdict on them, and said so, rather than a false error. */
	if (u->sq_dropped >= (1u << 30) || u->cq_overflow >= (1u << 30)) {
		ck->rings_unreadable++;
		return;
	}
	/* The SQ side's verdict rests on the drops the kernel was seen
	 * making (bpf/sq_drops.bpf.h), never on the shared counter, which the
	 * program may write: a rise of it beyond them is said, not judged. */
	if (u->sq_dropped > u->sq_dropped_kernel &&
	    u->sq_dropped - u->sq_dropped_kernel > m->sq_shared_told) {
		ck->drops_unjudged++;
		m->sq_shared_told = u->sq_dropped - u->sq_dropped_kernel;
	}
	if (u->sq_dropped_kernel > m->sq_dropped_told || u->cq_overflow > m->cq_overflow_told) {
		struct uc_kernel_drop_finding k = {
			.tgid = u->hdr.tgid, .ring_fd = ring->fd,
			.sq_dropped = u->sq_dropped_kernel - m->sq_dropped_told,
			.cq_overflow = u->cq_overflow - m->cq_overflow_told,
		};

		k.key = uc_key_mix(uc_key_mix(u->hdr.tgid, u->ctx), u->cq_overflow);
		m->sq_dropped_told = u->sq_dropped_kernel;
		m->cq_overflow_told = u->cq_overflow;
		report_kernel_drop(ck->report, &k);
	}
}

/* After a teardown the ring lives on (an exec keeps it): CQEs up to the
 * tail, and the cancellations of the requests just told, are told. */
static void mark_rings(struct td_rule *st, struct uc_check *ck, const struct td_records *r)
{
	for (size_t i = 0; i < r->nrings; i++) {
		struct td_ring *m = told(st, r->rings[i].ctx);
		uint32_t cancelled = 0;

		/* (the model's ring made if unknown, as its state was read) */
		tracker_ring(&ck->model, r->rings[i].ctx, r->rings[i].hdr.tgid);

		for (size_t k = 0; k < r->ndropped; k++)
			cancelled += r->dropped[k].ctx == r->rings[i].ctx;
		m->cq_mark = r->rings[i].cq_tail + cancelled;
		m->cq_mark_set = true;
	}
}

static uint64_t finding_key(struct uc_check *ck, const struct uc_left_finding *f)
{
	/* The same sites left again (another process, another run of a
	 * loop) is the same untidiness. */
	uint64_t key = uc_key_mix(0, f->reason);

	for (uint32_t g = 0; g < f->ngroups; g++)
		key = uc_key_mix(uc_key_mix(key, f->groups[g].opcode),
				 stacks_site_key(&ck->stacks, f->groups[g].stack_id));
	for (uint32_t g = 0; g < f->nnomem_ops; g++)
		key = uc_key_mix(key, 0x100 | f->nomem_ops[g].opcode);
	return uc_key_mix(key, !!f->unconsumed);
}

static void finding_free(struct uc_check *ck, struct uc_left_finding *f)
{
	stacks_unref(&ck->stacks, f->teardown_stack_id);
	for (uint32_t g = 0; g < f->ngroups; g++)
		stacks_unref(&ck->stacks, f->groups[g].stack_id);
	free(f->groups);
	free(f);
}

static void tell(struct uc_check *ck, struct uc_left_finding *f)
{
	if (f->held || f->nomem || f->unconsumed || f->head_past_tail)
		report_left_in_flight(ck->report, f);
	finding_free(ck, f);
}

static void on_teardown(struct td_rule *st, struct uc_check *ck, const struct uc_teardown *td)
{
	struct td_records *r = u64map_del(&st->teardowns, td->id);
	struct uc_left_finding *f;

	if (!r)
		return;
	f = xcalloc(1, sizeof(*f));
	*f = (struct uc_left_finding){
		.tgid = td->hdr.tgid, .reason = td->reason, .detail = td->detail,
		.ring_fd = td->ctx ? ring_fd(ck, td->ctx) : -1,
		.teardown_ts = td->hdr.ts,
	};
	group(ck, r, f);
	for (size_t i = 0; i < r->nrings; i++)
		ring_state(st, ck, &r->rings[i], f);
	/* The stack of the close or exit only for a teardown that will be
	 * told: a clean exit must not even map the stack store. */
	if (f->held || f->nomem || f->unconsumed || f->head_past_tail) {
		stacks_fetch(&ck->stacks, td->stack_id);
		f->teardown_stack_id = td->stack_id;
		stacks_ref(&ck->stacks, td->stack_id);
	}
	if (td->reason == UC_TD_CLOSE && td->ctx) {
		/* A closed ring's registered buffers are unregistered with it:
		 * their memory is the program's to release. */
		struct uc_ring *ring = u64map_get(&ck->model.rings, td->ctx);

		if (ring)
			tracker_bufs_clear(ring);
	}
	mark_rings(st, ck, r);
	f->key = finding_key(ck, f);
	free(r->dropped);
	free(r->rings);
	free(r);
	if (td->reason != UC_TD_EXEC) {
		tell(ck, f);
		return;
	}
	/* Told once the exec is known to have succeeded. */
	f = u64map_put(&st->pending_execs, td->hdr.tgid, f);
	if (f)
		finding_free(ck, f);
}

/* The exec whose teardown was sent returned (failed) or replaced the image. */
static void on_exec(void *arg, struct uc_check *ck, uint32_t tgid, bool succeeded)
{
	struct td_rule *st = arg;
	struct uc_left_finding *f = u64map_del(&st->pending_execs, tgid);

	if (!f)
		return;
	if (succeeded)
		tell(ck, f);
	else
		finding_free(ck, f);
}

static void free_td_cb(uint64_t key, void *val, void *arg)
{
	struct td_records *r = val;

	(void)key;
	(void)arg;
	free(r->dropped);
	free(r->rings);
	free(r);
}

static void free_told_cb(uint64_t key, void *val, void *arg)
{
	(void)key;
	(void)arg;
	free(val);
}

static void free_exec_cb(uint64_t key, void *val, void *arg)
{
	(void)key;
	finding_free(arg, val);
}

static void *td_init(struct uc_check *ck)
{
	struct td_rule *st = xcalloc(1, sizeof(*st));

	u64map_init(&st->teardowns);
	u64map_init(&st->rings);
	u64map_init(&st->pending_execs);
	return st;
}

static void on_record(void *arg, struct uc_check *ck, const struct uc_hdr *h)
{
	struct td_rule *st = arg;

	switch (h->type) {
	case UC_EV_DROPPED:
		on_dropped(st, (const void *)h);
		break;
	case UC_EV_UNREAPED:
		on_unreaped(st, (const void *)h);
		break;
	case UC_EV_TEARDOWN:
		on_teardown(st, ck, (const void *)h);
		break;
	}
}

static void td_free(void *arg, struct uc_check *ck)
{
	struct td_rule *st = arg;

	u64map_each(&st->teardowns, free_td_cb, NULL);
	u64map_free(&st->teardowns);
	u64map_each(&st->pending_execs, free_exec_cb, ck);
	u64map_free(&st->pending_execs);
	u64map_each(&st->rings, free_told_cb, NULL);
	u64map_free(&st->rings);
	free(st);
}

const struct uc_check_rule uc_rule_teardown = {
	.name = "teardown",
	.init = td_init,
	.on_exec = on_exec,
	.on_record = on_record,
	.free = td_free,
};
