/* SPDX-License-Identifier: GPL-2.0 */
/*
 * free-inflight's watch for a released chunk's next owner: the table of
 * released chunks an allocation is compared with (struct uc_heap_watches,
 * uringcheck.h, one mappable value both sides write with atomics). A
 * release sent to user space (heap_release.bpf.h's heap_send) arms a
 * slot; an allocation that returns bytes of it (heap_alloc.bpf.h)
 * consumes it and sends its stack; the session that got the release
 * gives the slot back (checker/heap_watch.c): at once when the release
 * hit no request, else when the request ends.
 *
 * Only a session that probes allocations (--heap-alloc-probes: its
 * settings' heap_owners) arms slots: for the others a slot would only be
 * taken and given back.
 *
 * The table is global (every session's processes, by global tgid): 256
 * slots, 64 at most per session, since a slot is held only from a
 * release that may hit memory in flight to the end of that request.
 * Full (for the session, or all of it): the release says so
 * (UC_HEAP_WATCH_FULL) and its report tells that the next owner was not
 * watched.
 */
#ifndef __HEAP_WATCH_BPF_H
#define __HEAP_WATCH_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "uringcheck.h"
#include "session.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);	/* given back by user space */
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uc_heap_watches);
} heap_watches SEC(".maps");

static __always_inline struct uc_heap_watches *heap_watches_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&heap_watches, &zero);
}

/* The watch a record names: the slot's generation tells a slot armed
 * again apart from the arm a late record was about. */
static __always_inline __u32 heap_watch_name(struct uc_heap_watch *w, __u32 i)
{
	return (w->gen & 0xffffff) << 8 | (i + 1);
}

/* Arms a slot for bytes [lo, hi) the current process released, whose
 * record goes to session @sid: its watch, or UC_HEAP_WATCH_FULL. */
static __always_inline __u32 heap_watch_arm(__u32 sid, __u64 lo, __u64 hi)
{
	struct uc_heap_watches *hw = heap_watches_get();
	struct uc_session_cfg *cfg = session_cfg(sid);
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	__u64 *held;

	if (!hw || !cfg || !cfg->heap_owners)
		return 0;
	/* the session's share first (given back with its slot, in user
	 * space); the mask for the verifier (sessions are a power of two) */
	held = &hw->held[sid & (UC_MAX_SESSIONS - 1)];
	if (__sync_fetch_and_add(held, 1) >= UC_HEAP_WATCHES_SESSION) {
		__sync_fetch_and_add(held, -1);
		return UC_HEAP_WATCH_FULL;
	}
	for (__u32 i = 0; i < UC_HEAP_WATCHES; i++) {
		struct uc_heap_watch *w = &hw->w[i];

		if (w->state != UC_WATCH_FREE ||
		    __sync_val_compare_and_swap(&w->state, UC_WATCH_FREE,
						UC_WATCH_CLAIMING) != UC_WATCH_FREE)
			continue;
		w->lo = lo;
		w->hi = hi;
		w->tgid = tgid;
		w->session = sid;
		w->gen = (w->gen + 1) & 0xffffff;
		/* counted before it is ARMED: an allocation that sees it
		 * ARMED found its bucket non-zero */
		__sync_fetch_and_add(&hw->count[tgid % UC_HEAP_WATCH_BUCKETS], 1);
		__sync_val_compare_and_swap(&w->state, UC_WATCH_CLAIMING, UC_WATCH_ARMED);
		return heap_watch_name(w, i);
	}
	__sync_fetch_and_add(held, -1);
	return UC_HEAP_WATCH_FULL;
}

#endif /* __HEAP_WATCH_BPF_H */
