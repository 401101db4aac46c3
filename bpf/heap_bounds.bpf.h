/* SPDX-License-Identifier: GPL-2.0 */
/*
 * free-inflight's filter (bpf/heap_release.bpf.h): per ring, a span that
 * contains every range its requests holding memory have in flight, so a
 * free() outside it is dismissed in the kernel, without a record or a
 * stack capture (fio frees thousands of small chunks a second beside
 * its in-flight buffers; each capture took a slot of the stack store
 * from the submissions).
 *
 * Noted at submission, before mem_inflight counts the request: the
 * first request after the ring held nothing starts a new span, the
 * others widen it; it never narrows while anything is in flight. A
 * ring's submissions are serialized (uring_lock), so the span is never
 * written by two at once; a completion that races with it only leaves it
 * wider than needed. Ranges that did not fit the record (continuation
 * records) and buffer-select requests take the whole address space.
 *
 * sync-overlap's filter (bpf/sync_calls.bpf.h) uses both: a plain
 * read(2) stores, and meets any in-flight request's bytes (the first
 * span); a write(2) loads, and meets an in-flight read's bytes only: a
 * second span, kept the same way, covers only the requests that store
 * into their ranges (reads, receives); a ring with writes alone in
 * flight has an empty one (lo above hi), which no write(2) reaches.
 */
#ifndef __HEAP_BOUNDS_BPF_H
#define __HEAP_BOUNDS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "uringcheck.h"
#include "rings.bpf.h"

static __always_inline void heap_bounds_note(struct ring_info *ri, const struct uc_submit *s)
{
	__u64 lo = ~0ULL, hi = 0, slo = ~0ULL, shi = 0;

	if (!s->nr_ranges || s->nr_ranges > s->nr_inline ||
	    (s->flags & UC_SUB_BUFFER_SELECT)) {
		lo = 0;
		hi = ~0ULL;
	} else {
		for (int i = 0; i < UC_INLINE_RANGES; i++) {
			__u64 a, e;

			if (i >= s->nr_inline)
				break;
			a = s->ranges[i].addr;
			e = a + s->ranges[i].len;
			if (e < a)
				e = ~0ULL;
			if (a < lo)
				lo = a;
			if (e > hi)
				hi = e;
		}
	}
	/* The same direction user space judges a sync call by
	 * (checker/rules/calls.c, sync_hit): the one in the record. */
	if (s->direction == UC_DIR_SINK) {
		slo = lo;
		shi = hi;
	}
	if (ri->mem_inflight <= 0) {
		ri->mem_lo = lo;
		ri->mem_hi = hi;
		ri->sink_lo = slo;
		ri->sink_hi = shi;
		return;
	}
	if (lo < ri->mem_lo)
		ri->mem_lo = lo;
	if (hi > ri->mem_hi)
		ri->mem_hi = hi;
	if (slo < ri->sink_lo)
		ri->sink_lo = slo;
	if (shi > ri->sink_hi)
		ri->sink_hi = shi;
}

#endif /* __HEAP_BOUNDS_BPF_H */
