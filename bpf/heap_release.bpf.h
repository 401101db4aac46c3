/* SPDX-License-Identifier: GPL-2.0 */
/*
 * free-inflight: glibc malloc chunks released while the process has
 * memory in flight (docs/hazards.md). One uprobe program, attached by
 * user space (checker/heap_probes.c) to the target's libc.so.6 with the
 * process as the perf event's target, so a breakpoint exists only in the
 * address spaces followed and no other process pays anything:
 *
 *   free (= __libc_free; C++ operator delete reaches it)  cookie FREE
 *   realloc (= __libc_realloc; reallocarray calls it)     cookie REALLOC
 *   realloc's return (uretprobe)                          cookie REALLOC_RET
 *
 * The chunk's extent is the allocator's own: the size field of the chunk
 * header at ptr - 8, low three bits flags (PREV_INUSE, IS_MMAPPED,
 * NON_MAIN_ARENA); usable bytes = chunksize - 8, or - 16 if mmapped (as
 * glibc's malloc_usable_size computes it).
 *
 * Nothing is sent unless the process holds user memory in flight right
 * then within a span that meets the chunk (bpf/heap_bounds.bpf.h), or
 * a provided buffer (the test the sync calls use, widened); user space
 * judges the released bytes against the requests in flight
 * (checker/rules/heap_release.c). A realloc is judged at its return,
 * when its result says what it gave back: the whole old chunk if it
 * moved, the tail past the new chunk if it shrank in place.
 */
#ifndef __HEAP_RELEASE_BPF_H
#define __HEAP_RELEASE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "uringcheck.h"
#include "uprobe_forms.bpf.h"
#include "tracked.bpf.h"
#include "events.bpf.h"
#include "rings.bpf.h"
#include "ring_index.bpf.h"
#include "stacks.bpf.h"
#include "provided_buffers.bpf.h"
#include "request_ends.bpf.h"
#include "heap_watch.bpf.h"

#define HEAP_COOKIE_FREE	1
#define HEAP_COOKIE_REALLOC	2
#define HEAP_COOKIE_REALLOC_RET	3

#define HEAP_SIZE_BITS		7ULL	/* PREV_INUSE | IS_MMAPPED | NON_MAIN_ARENA */
#define HEAP_IS_MMAPPED		2ULL

/* A realloc between entry and return, per thread. */
struct heap_realloc_call {
	__u64 ptr;
	__u64 usable;
	__u64 head;
	__u64 size;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);	/* used only while busy */
	__uint(max_entries, 4096);
	__type(key, __u32);			/* tid */
	__type(value, struct heap_realloc_call);
} heap_reallocs SEC(".maps");

/* The record being assembled, off the stack: 6.1 adds up the frames
 * along the deepest call chain (at most 512 bytes), and this program's
 * reaches a quiet end's (heap_send() -> collect_process_quiet_ends()). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uc_heap_release);
} heap_scratch SEC(".maps");

/* The chunk header of user pointer @ptr: its size field, 0 if unreadable. */
static __always_inline __u64 heap_head(__u64 ptr)
{
	__u64 head = 0;

	if (ptr < 16 || bpf_probe_read_user(&head, sizeof(head), (void *)(ptr - 8)))
		return 0;
	return head;
}

static __always_inline __u64 heap_usable(__u64 head)
{
	__u64 size = head & ~HEAP_SIZE_BITS;
	__u64 over = head & HEAP_IS_MMAPPED ? 16 : 8;

	return size > over ? size - over : 0;
}

struct heap_probe {
	__u32 tgid;
	__u32 found;
	__u64 lo, hi;			/* the chunk */
	__u64 pick;		/* the process's rings */
};

/* A ring of the process with memory in flight whose span meets the chunk,
 * or holding a provided buffer now (which is then sent, as for a sync
 * call: bpf/provided_buffers.bpf.h). */
static long heap_ring_step(__u64 i, struct heap_probe *p)
{
	struct ring_info *ri;
	__u64 ctx;

	if (!ring_pick_slot(p->pick, &i))
		return 0;
	ri = ring_at(i, &ctx);
	if (!ri || ri->tgid != p->tgid)
		return 0;
	if ((ri->mem_inflight > 0 && ri->mem_lo < p->hi && p->lo < ri->mem_hi) ||
	    (ri->pbuf_watched && pbuf_held_ring(ri, ctx))) {
		p->found = 1;
		return 1;
	}
	return 0;
}

/* Might [lo, hi) hold bytes of a request of @tgid in flight? */
static __always_inline bool heap_may_hit(__u32 tgid, __u64 lo, __u64 hi)
{
	struct heap_probe p = { .tgid = tgid, .lo = lo, .hi = hi };

	bpf_loop(ring_pick_init(&p.pick, tgid), heap_ring_step, &p, 0);
	return p.found;
}

/* A record of bytes given back (@r: all but its header and stack);
 * global, so verified once. */
__noinline int heap_send(__u32 sid, __u32 tgid, struct uc_heap_release *r)
{
	struct uc_heap_release *e;
	__u64 stack_id;

	if (!r || r->end <= r->start)
		return 0;
	collect_process_quiet_ends(tgid);
	stack_id = capture_stack(sid, tgid);
	e = ev_reserve(sid, sizeof(*e), UC_EV_HEAP_RELEASE);
	if (!e)
		return 0;
	fill_hdr(&e->hdr, UC_EV_HEAP_RELEASE, tgid);
	e->chunk = r->chunk;
	e->usable = heap_usable(r->head);
	e->head = r->head;
	e->start = r->start;
	e->end = r->end;
	e->new_ptr = r->new_ptr;
	e->stack_id = stack_id;
	e->how = r->how;
	/* after the reserve: a watch is armed only for a release user
	 * space will see, and the allocation's record comes after it */
	e->watch = heap_watch_arm(sid, r->start, r->end);
	ev_submit(sid, e);
	return 0;
}

UPROBE_PROGRAM(uc_heap_release)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);
	/* the global thread id: only this program's key (bpf/pidns.bpf.h) */
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct heap_realloc_call *rc, call = {};
	struct uc_heap_release *r;
	struct uc_tracked *state;
	__u64 ptr, head, usable, ret, start;
	__u32 tgid, how, zero = 0;

	if (cookie == HEAP_COOKIE_REALLOC_RET) {
		rc = bpf_map_lookup_elem(&heap_reallocs, &tid);
		if (!rc)
			return 0;
		call = *rc;
		bpf_map_delete_elem(&heap_reallocs, &tid);
		ret = PT_REGS_RC(ctx);
		if (!ret || !(state = current_tracked(&tgid)))
			return 0;	/* failed, or realloc(p, 0): free() told */
		if (ret != call.ptr) {
			start = call.ptr;
			how = UC_HEAP_REALLOC_MOVED;
		} else {
			/* In place: what lies past the new chunk's usable
			 * bytes went back (the remainder's own header first). */
			usable = heap_usable(heap_head(ret));
			if (!usable || usable >= call.usable)
				return 0;
			start = ret + usable;
			how = UC_HEAP_REALLOC_SHRUNK;
		}
		if (!(r = bpf_map_lookup_elem(&heap_scratch, &zero)))
			return 0;
		r->chunk = call.ptr;
		r->head = call.head;
		r->new_ptr = ret;
		r->start = start;
		r->end = call.ptr + call.usable;
		r->how = how;
		return heap_send(state->session, tgid, r);
	}

	/* free(ptr) or realloc(ptr, size): nothing to judge unless the
	 * process holds memory in flight near the chunk. */
	ptr = PT_REGS_PARM1(ctx);
	if (!ptr || !(state = current_tracked(&tgid)) || !state->used_uring)
		return 0;
	head = heap_head(ptr);
	usable = heap_usable(head);
	if (!usable || !heap_may_hit(tgid, ptr, ptr + usable))
		return 0;
	if (cookie == HEAP_COOKIE_FREE) {
		if (!(r = bpf_map_lookup_elem(&heap_scratch, &zero)))
			return 0;
		r->chunk = r->start = ptr;
		r->head = head;
		r->new_ptr = 0;
		r->end = ptr + usable;
		r->how = UC_HEAP_FREE;
		return heap_send(state->session, tgid, r);
	}
	call.ptr = ptr;
	call.usable = usable;
	call.head = head;
	call.size = PT_REGS_PARM2(ctx);
	bpf_map_update_elem(&heap_reallocs, &tid, &call, BPF_ANY);
	return 0;
}

#endif /* __HEAP_RELEASE_BPF_H */
