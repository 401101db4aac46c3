/* SPDX-License-Identifier: GPL-2.0 */
/*
 * free-inflight's findings held for their chunk's next owner: a finding
 * whose release was watched (heap_watch.h) is reported when the chunk is
 * handed out again (the allocation's stack named) or when its request
 * ends (nothing more said), whichever the event stream shows first; the
 * ones still held at the end of the run are reported then.
 *
 * Used by the free-inflight rule (rules/heap_release.c) alone.
 */
#ifndef UC_HEAP_OWNER_H
#define UC_HEAP_OWNER_H

#include <stddef.h>
#include <stdint.h>

#include "rules/rule.h"
#include "kinds/kind_reports.h"

struct heap_held {
	struct uc_free_finding f;
	const struct uc_request *req;	/* in flight until its on_end */
	uint32_t watch;
};

struct heap_owner {
	struct heap_held *held;
	size_t n, cap;
};

/* Finding @f (request @r) of a release whose watch is @watch: held
 * (true), or reported now when nothing will come (no allocation probes,
 * no watch, the table full: said in it). A release none of whose
 * findings is held gives its watch back (heap_owner_unused). */
bool heap_owner_hold(struct heap_owner *o, struct uc_check *ck, struct uc_free_finding *f,
		     const struct uc_request *r, uint32_t watch);
/* A release that made no finding: its watch given back now. */
void heap_owner_unused(struct heap_owner *o, struct uc_check *ck, uint32_t watch);
/* A watched chunk was handed out again: its findings reported. */
void heap_owner_alloc(struct heap_owner *o, struct uc_check *ck,
		      const struct uc_heap_alloc *a);
/* Request @r ended: its findings reported, not handed out again. */
void heap_owner_end(struct heap_owner *o, struct uc_check *ck, const struct uc_request *r);
/* The end of the run: every finding still held reported. */
void heap_owner_flush(struct heap_owner *o, struct uc_check *ck);
/* Without reporting (the run is over): the watches given back. */
void heap_owner_free(struct heap_owner *o, struct uc_check *ck);

#endif
