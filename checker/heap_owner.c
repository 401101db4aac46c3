// SPDX-License-Identifier: GPL-2.0
/*
 * free-inflight's findings held for their chunk's next owner
 * (heap_owner.h). Few are ever held at once (a watch slot each, 64 at
 * most, shared by the findings of one release): a plain array.
 *
 * The stream's order decides: a release's record comes before the
 * allocation that consumed its watch (the kernel arms the watch after
 * reserving the release's record), and an allocation reserved before
 * the request's end comes before that end. The free's stack is held
 * while its finding waits (the store may be overwritten meanwhile); the
 * request's submission stack is the request's until its end.
 */
#include "heap_owner.h"

#include <stdlib.h>
#include <string.h>

#include "heap_watch.h"
#include "xalloc.h"

static bool watch_used_from(const struct heap_owner *o, size_t from, uint32_t watch)
{
	for (size_t i = from; i < o->n; i++)
		if (o->held[i].watch == watch)
			return true;
	return false;
}

static bool watch_used(const struct heap_owner *o, uint32_t watch)
{
	for (size_t i = 0; i < o->n; i++)
		if (o->held[i].watch == watch)
			return true;
	return false;
}

/* Reports held finding @i and forgets it (the others keep their order:
 * the report's order is the releases'). */
static void emit(struct heap_owner *o, struct uc_check *ck, size_t i)
{
	struct heap_held h = o->held[i];

	memmove(&o->held[i], &o->held[i + 1], (--o->n - i) * sizeof(*o->held));
	report_free_inflight(ck->report, &h.f);
	stacks_unref(&ck->stacks, h.f.free_stack_id);
	if (h.f.owner == UC_OWNER_FOUND)
		stacks_unref(&ck->stacks, h.f.alloc_stack_id);
	if (!watch_used(o, h.watch))
		heap_watch_give_back(ck->heap_watches, h.watch);
}

bool heap_owner_hold(struct heap_owner *o, struct uc_check *ck, struct uc_free_finding *f,
		     const struct uc_request *r, uint32_t watch)
{
	struct heap_held *h;

	if (!ck->heap_owners || !heap_watch_valid(watch) || !ck->heap_watches) {
		if (ck->heap_owners && watch == UC_HEAP_WATCH_FULL) {
			f->owner = UC_OWNER_UNWATCHED;
			ck->heap_unwatched++;
		}
		report_free_inflight(ck->report, f);
		return false;
	}
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 16;
		o->held = xrealloc(o->held, o->cap * sizeof(*o->held));
	}
	h = &o->held[o->n++];
	h->f = *f;
	h->f.owner = UC_OWNER_NONE;
	h->req = r;
	h->watch = watch;
	stacks_ref(&ck->stacks, f->free_stack_id);
	return true;
}

void heap_owner_unused(struct heap_owner *o, struct uc_check *ck, uint32_t watch)
{
	if (!watch_used(o, watch))
		heap_watch_give_back(ck->heap_watches, watch);
}

void heap_owner_alloc(struct heap_owner *o, struct uc_check *ck,
		      const struct uc_heap_alloc *a)
{
	bool fetched = false;

	for (size_t i = 0; i < o->n;) {
		struct uc_free_finding *f = &o->held[i].f;

		if (o->held[i].watch != a->watch) {
			i++;
			continue;
		}
		if (!fetched)
			stacks_fetch(&ck->stacks, a->stack_id);
		fetched = true;
		stacks_ref(&ck->stacks, a->stack_id);
		f->owner = UC_OWNER_FOUND;
		f->alloc_fn = a->fn;
		f->alloc_tid = a->hdr.tid;
		f->alloc_ptr = a->ptr;
		f->alloc_usable = a->usable;
		f->alloc_stack_id = a->stack_id;
		emit(o, ck, i);
	}
}

void heap_owner_end(struct heap_owner *o, struct uc_check *ck, const struct uc_request *r)
{
	for (size_t i = 0; i < o->n;)
		if (o->held[i].req == r)
			emit(o, ck, i);
		else
			i++;
}

void heap_owner_flush(struct heap_owner *o, struct uc_check *ck)
{
	while (o->n)
		emit(o, ck, 0);
}

void heap_owner_free(struct heap_owner *o, struct uc_check *ck)
{
	for (size_t i = 0; i < o->n; i++)
		if (!watch_used_from(o, i + 1, o->held[i].watch))
			heap_watch_give_back(ck->heap_watches, o->held[i].watch);
	free(o->held);
	memset(o, 0, sizeof(*o));
}
