/* SPDX-License-Identifier: GPL-2.0 */
/*
 * free-inflight's new owner: glibc's allocation calls, at their return,
 * in the libc.so.6 the free probe uses (checker/heap_probes.c attaches
 * them with the free probes, per followed process). The cookie says
 * which call (enum uc_heap_alloc_fn):
 *
 *   malloc, calloc, realloc                 uretprobe, the result
 *   memalign, aligned_alloc                 uretprobe, the result
 *   valloc, pvalloc                         uretprobe, the result
 *   posix_memalign                          uprobe (its out-pointer kept
 *                                           per thread) and uretprobe
 *                                           (*out-pointer, if it returned 0)
 *   realloc                                 uprobe too (below)
 *
 * realloc(NULL, n) and posix_memalign with a small alignment call malloc
 * inside: that malloc's return is not the allocation (the outer call's
 * is), and a stack taken there cannot be unwound past the outer call,
 * whose return address the kernel replaced with its uretprobe
 * trampoline. So both outer calls note the thread at their entry
 * (heap_outer, only while something is watched) and a malloc returning
 * inside one is left to it.
 *
 * Every allocation of a followed process traps here, so the program
 * returns at once unless that process has a released chunk watched
 * (bpf/heap_watch.bpf.h: its tgid's bucket non-zero). Otherwise the
 * returned chunk, as its header gives it, is compared with the watched
 * slots of the process; each it meets is consumed and named in a
 * UC_EV_HEAP_ALLOC record with the allocation's stack (taken once).
 */
#ifndef __HEAP_ALLOC_BPF_H
#define __HEAP_ALLOC_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "uringcheck.h"
#include "uprobe_forms.bpf.h"
#include "events.bpf.h"
#include "stacks.bpf.h"
#include "heap_watch.bpf.h"
#include "heap_release.bpf.h"	/* heap_head, heap_usable */

/* The entries (the returns' cookies are UC_ALLOC_POSIX_MEMALIGN and
 * UC_ALLOC_REALLOC). */
#define HEAP_ALLOC_PM_ENTRY		16
#define HEAP_ALLOC_REALLOC_ENTRY	17

/* A thread inside posix_memalign (its memptr) or realloc (0). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);	/* used only while watched */
	__uint(max_entries, 1024);
	__type(key, __u32);			/* global tid */
	__type(value, __u64);
} heap_outer SEC(".maps");

struct heap_alloc_hit {
	__u64 lo, hi;			/* the returned chunk */
	__u64 stack_id;
	__u32 tgid;			/* global */
	__u32 fn;
	__u32 taken;			/* stack_id valid */
	__u32 pad;
};

/* Sends the hit on watch @watch of session @sid; global, so verified
 * once. */
__noinline int heap_alloc_send(__u32 sid, __u32 watch, struct heap_alloc_hit *h)
{
	struct uc_heap_alloc *e;
	struct uc_tracked *t;
	__u32 tgid;

	if (!h)
		return 0;
	t = current_tracked(&tgid);	/* tgid as the records give it */
	if (!t)
		return 0;
	if (!h->taken) {
		h->stack_id = capture_stack(sid, tgid);
		h->taken = 1;
	}
	e = ev_reserve(sid, sizeof(*e), UC_EV_HEAP_ALLOC);
	if (!e)
		return 0;
	fill_hdr(&e->hdr, UC_EV_HEAP_ALLOC, tgid);
	e->ptr = h->lo;
	e->usable = h->hi - h->lo;
	e->stack_id = h->stack_id;
	e->watch = watch;
	e->fn = h->fn;
	ev_submit(sid, e);
	return 0;
}

UPROBE_PROGRAM(uc_heap_alloc)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);
	__u64 id = bpf_get_current_pid_tgid(), ptr = 0, *mp;
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct uc_heap_watches *hw = heap_watches_get();
	struct heap_alloc_hit h = {};

	if (cookie == UC_ALLOC_POSIX_MEMALIGN || cookie == UC_ALLOC_REALLOC) {
		/* taken whatever the watch says now: nothing left behind */
		mp = bpf_map_lookup_elem(&heap_outer, &tid);
		if (mp) {
			ptr = *mp;
			bpf_map_delete_elem(&heap_outer, &tid);
		}
		if (cookie == UC_ALLOC_POSIX_MEMALIGN &&
		    (!mp || PT_REGS_RC(ctx) ||
		     bpf_probe_read_user(&ptr, sizeof(ptr), (void *)ptr)))
			return 0;
	}
	/* The common case: nothing of this process watched. */
	if (!hw || !hw->count[tgid % UC_HEAP_WATCH_BUCKETS])
		return 0;
	if (cookie == HEAP_ALLOC_PM_ENTRY || cookie == HEAP_ALLOC_REALLOC_ENTRY) {
		ptr = cookie == HEAP_ALLOC_PM_ENTRY ? PT_REGS_PARM1(ctx) : 0;
		bpf_map_update_elem(&heap_outer, &tid, &ptr, BPF_ANY);
		return 0;
	}
	/* malloc inside realloc or posix_memalign: theirs */
	if (cookie == UC_ALLOC_MALLOC && bpf_map_lookup_elem(&heap_outer, &tid))
		return 0;
	if (cookie != UC_ALLOC_POSIX_MEMALIGN)
		ptr = PT_REGS_RC(ctx);
	if (!ptr)
		return 0;
	h.lo = ptr;
	h.hi = ptr + heap_usable(heap_head(ptr));
	if (h.hi <= h.lo)
		return 0;
	h.tgid = tgid;
	h.fn = cookie;
	for (__u32 i = 0; i < UC_HEAP_WATCHES; i++) {
		struct uc_heap_watch *w = &hw->w[i];

		if (w->state != UC_WATCH_ARMED || w->tgid != tgid ||
		    w->hi <= h.lo || h.hi <= w->lo)
			continue;
		if (__sync_val_compare_and_swap(&w->state, UC_WATCH_ARMED,
						UC_WATCH_CONSUMED) != UC_WATCH_ARMED)
			continue;	/* given back or consumed meanwhile */
		/* consumed: its fields stay until user space gives it back */
		__sync_fetch_and_add(&hw->count[tgid % UC_HEAP_WATCH_BUCKETS], -1);
		heap_alloc_send(w->session, heap_watch_name(w, i), &h);
	}
	return 0;
}

#endif /* __HEAP_ALLOC_BPF_H */
