// SPDX-License-Identifier: GPL-2.0
/* The check mode's dispatcher: dispatch.h. */
#include "dispatch.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules.h"
#include "xalloc.h"
#include "../reports/report.h"

/* Runs hook @hook of every rule that has one, in table order. */
#define RUN(d, hook, ...)						\
	do {								\
		for (unsigned int i_ = 0; i_ < uc_check_rules_count; i_++)	\
			if (uc_check_rules[i_]->hook)				\
				uc_check_rules[i_]->hook((d)->state[i_], &(d)->ck, __VA_ARGS__); \
	} while (0)

/* The model's end hook: a request leaves flight. */
static void on_end(void *arg, const struct uc_request *r)
{
	struct uc_dispatch *d = arg;

	RUN(d, on_end, r);
}

void dispatch_init(struct uc_dispatch *d, struct uc_report *report)
{
	struct uc_check *ck = &d->ck;

	memset(d, 0, sizeof(*d));
	ck->report = report;
	stacks_init(&ck->stacks);
	tracker_init(&ck->model, &ck->stacks, on_end, d);
	evidence_init(&ck->ev, NULL);
	report->print_stack = stacks_print;
	report->stack_frames = stacks_frames;
	report->stack_ctx = &ck->stacks;
	d->state = xcalloc(uc_check_rules_count ? uc_check_rules_count : 1, sizeof(*d->state));
	for (unsigned int i = 0; i < uc_check_rules_count; i++)
		if (uc_check_rules[i]->init)
			d->state[i] = uc_check_rules[i]->init(ck);
}

static void on_submit(struct uc_dispatch *d, const struct uc_submit *s)
{
	struct uc_check *ck = &d->ck;
	struct uc_request *r;

	stacks_fetch(&ck->stacks, s->stack_id);
	r = tracker_submit(&ck->model, s);
	if (!r)
		return;
	/* Ends lost before this record are applied before judging it. */
	evidence_refresh(&ck->ev, &ck->model);
	evidence_mark(&ck->ev, r);
	tracker_admit(&ck->model, r);
	RUN(d, on_submit, r);
	tracker_insert_ranges(&ck->model, r);
}

/*
 * A buffer-select request and the provided buffer the kernel picked for
 * it (bpf/provided_buffers.bpf.h, struct uc_pick):
 *
 *  - held before its CQE (at a system call of the process or a new
 *    request on the ring, sent just before that record): the buffer joins
 *    the address space's in-flight set as the request's range, so the
 *    overlap, sync-overlap and munmap-inflight rules judge what follows
 *    against it as against any other request;
 *  - at its CQE: the buffer was held up to now. Judged against everything
 *    in flight at this moment (a request still in flight now was in
 *    flight while the kernel held the buffer), then it goes back to the
 *    program.
 *
 * The rules' on_pick hooks run in both cases, before the model takes the
 * buffer in or lets it go.
 *
 * Legacy groups (IORING_OP_PROVIDE_BUFFERS) are resolved from the model:
 * the kernel's record of a legacy buffer is freed when it hands it back.
 *
 * A bundle's CQE comes as one pick per buffer (UC_PICK_BUNDLE after the
 * first); an incremental ring's as the piece that CQE consumed (none:
 * nothing to judge, and nothing unresolved either). A pick the kernel
 * side saw held by another request too (UC_PICK_DOUBLE) first makes
 * that request hold it, so the rules judge the two against each other.
 */
static void on_pick(struct uc_dispatch *d, const struct uc_pick *p)
{
	struct uc_check *ck = &d->ck;
	struct uc_tracker *t = &ck->model;
	struct uc_request *r = tracker_request(t, p->seq);
	uint64_t addr = p->addr, len = p->len, end;

	if (!r || r->sub.ctx != p->ctx)
		return;		/* its submission was not seen */
	if (p->flags & UC_PICK_RELEASED) {
		/* The kernel took the buffer back unused (a receive that
		 * had to wait): another request may hold it now. */
		tracker_release(t, r);
		return;
	}
	if ((p->flags & UC_PICK_INC) && !len && !(p->flags & UC_PICK_UNRESOLVED)) {
		/* nothing consumed: nothing was held */
		if (p->flags & UC_PICK_CQE)
			tracker_release(t, r);
		return;
	}
	ck->picks++;
	if (!addr && (p->flags & UC_PICK_LEGACY))
		tracker_legacy_buf(r->ring, p->bgid, p->bid, &addr, &len);
	if (!addr || !len || (p->flags & UC_PICK_UNRESOLVED)) {
		ck->picks_unresolved++;
		if (p->flags & UC_PICK_CQE)
			tracker_release(t, r);	/* whatever it held, it gave back */
		return;
	}
	end = addr + len < addr ? UINT64_MAX : addr + len;
	r->pick_bid = p->bid;

	/* Events lost since its submission: the ends of what it would be
	 * compared with are applied first, as for a new request. */
	evidence_refresh(&ck->ev, t);
	if (p->flags & UC_PICK_HELD) {
		if (tracker_holds(r, addr, end))
			return;		/* known already */
		tracker_release(t, r);
		RUN(d, on_pick, r, p, addr, end);
		evidence_mark_pick(&ck->ev, r);
		tracker_hold(t, r, addr, end);
		return;
	}
	/* At its CQE */
	if (p->flags & UC_PICK_DOUBLE) {
		struct uc_request *o = tracker_request(t, p->other_seq);

		if (o && o != r && o->as == r->as && !tracker_holds(o, addr, end)) {
			tracker_release(t, o);
			evidence_mark_pick(&ck->ev, o);
			tracker_hold(t, o, addr, end);
		}
	}
	RUN(d, on_pick, r, p, addr, end);
	tracker_release(t, r);
}

void dispatch_record(struct uc_dispatch *d, const void *data, size_t size)
{
	struct uc_check *ck = &d->ck;
	const struct uc_hdr *h = data;

	ck->events++;
	evidence_on_record(&ck->ev, &ck->model);
	if (!(ck->events & 63))
		stacks_rescue(&ck->stacks);
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
		on_submit(d, &full);
		break;
	}
	case UC_EV_RANGES:
		if (size < sizeof(struct uc_ranges))
			goto bad;
		tracker_add_ranges(&ck->model, data);
		break;
	case UC_EV_DONE:
		if (size < sizeof(struct uc_done))
			goto bad;
		tracker_done(&ck->model, data);
		break;
	case UC_EV_RING_CREATE:
		if (size < sizeof(struct uc_ring_create))
			goto bad;
		stacks_process_seen(&ck->stacks, h->tgid);
		tracker_ring_create(&ck->model, data);
		if (((const struct uc_ring_create *)data)->fd < 0) {
			/* Not seen created: its descriptor, from those the
			 * process held at the attach (ring_fds.h). */
			struct uc_ring *r = tracker_ring(&ck->model,
				((const struct uc_ring_create *)data)->ctx, h->tgid);

			if (r->fd < 0)
				r->fd = ring_fd_find(&d->fds, &ck->model, data);
		}
		break;
	case UC_EV_EXEC:
		RUN(d, on_exec, h->tgid, true);
		tracker_exec(&ck->model, h->tgid);
		stacks_process_changed(&ck->stacks, h->tgid, 0);
		break;
	case UC_EV_CALL:
		if (size < sizeof(struct uc_call))
			goto bad;
		stacks_fetch(&ck->stacks, ((const struct uc_call *)data)->stack_id);
		RUN(d, on_call, data);
		break;
	case UC_EV_CALL_RET:
		if (size < sizeof(struct uc_call_ret))
			goto bad;
		if (((const struct uc_call_ret *)data)->nr == UC_NR_EXECVE ||
		    ((const struct uc_call_ret *)data)->nr == UC_NR_EXECVEAT)
			RUN(d, on_exec, h->tgid, false);
		else
			RUN(d, on_call_ret, data);
		break;
	case UC_EV_REGISTER:
		if (size < sizeof(struct uc_register))
			goto bad;
		RUN(d, on_register, data);
		break;
	case UC_EV_DROPPED:
		if (size < sizeof(struct uc_dropped))
			goto bad;
		stacks_fetch(&ck->stacks, ((const struct uc_dropped *)data)->stack_id);
		RUN(d, on_record, h);
		break;
	case UC_EV_UNREAPED:
		if (size < sizeof(struct uc_unreaped))
			goto bad;
		RUN(d, on_record, h);
		break;
	case UC_EV_TEARDOWN:
		if (size < sizeof(struct uc_teardown))
			goto bad;
		RUN(d, on_record, h);
		break;
	case UC_EV_REAP_LAG:
		if (size < sizeof(struct uc_reap_lag))
			goto bad;
		stacks_fetch(&ck->stacks, ((const struct uc_reap_lag *)data)->reap_stack_id);
		RUN(d, on_record, h);
		break;
	case UC_EV_HEAP_RELEASE:
		/* Its stack is read only if it hits (rules/heap_release.c). */
		if (size < sizeof(struct uc_heap_release))
			goto bad;
		RUN(d, on_record, h);
		break;
	case UC_EV_HEAP_ALLOC:
		/* Its stack is read only if a finding waits for it
		 * (checker/heap_owner.c). */
		if (size < sizeof(struct uc_heap_alloc))
			goto bad;
		RUN(d, on_record, h);
		break;
	case UC_EV_FRAME_GONE:
		/* Its stack is read only if it hits (rules/stack_frames.c). */
		if (size < sizeof(struct uc_frame_gone))
			goto bad;
		RUN(d, on_record, h);
		break;
	case UC_EV_PICK:
		if (size < sizeof(struct uc_pick))
			goto bad;
		on_pick(d, data);
		break;
	case UC_EV_PROVIDE:
		if (size < sizeof(struct uc_provide))
			goto bad;
		tracker_provide(&ck->model, data);
		break;
	case UC_EV_CHANNEL:
		if (size < sizeof(struct uc_channel))
			goto bad;
		tracker_channel(&ck->model, data);
		break;
	case UC_EV_MAPPING:
		if (size < sizeof(struct uc_vma_record))
			goto bad;
		stacks_on_mapping(&ck->stacks, data);
		break;
	case UC_EV_EXIT:
		stacks_process_changed(&ck->stacks, h->tgid, 1);
		tracker_process_exit(&ck->model, h->tgid);
		break;
	case UC_EV_FORK:
		stacks_process_forked(&ck->stacks, ((const struct uc_proc *)data)->parent_tgid,
				      h->tgid);
		break;
	default:
		goto bad;
	}
	return;
bad:
	ck->malformed++;
}

void dispatch_finish(struct uc_dispatch *d)
{
	for (unsigned int i = 0; i < uc_check_rules_count && d->state; i++)
		if (uc_check_rules[i]->finish)
			uc_check_rules[i]->finish(d->state[i], &d->ck);
}

void dispatch_free(struct uc_dispatch *d)
{
	struct uc_check *ck = &d->ck;

	tracker_free(&ck->model);
	ring_fds_free(&d->fds);
	for (unsigned int i = 0; i < uc_check_rules_count && d->state; i++)
		if (uc_check_rules[i]->free)
			uc_check_rules[i]->free(d->state[i], ck);
	free(d->state);
	evidence_free(&ck->ev);
	stacks_free(&ck->stacks);
}
