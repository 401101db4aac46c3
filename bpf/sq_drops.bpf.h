/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dropped (the SQ side): what the kernel itself discarded, never what the
 * program wrote. The ring's sq_dropped counter lives in memory the
 * program maps and may write (liburing's defer test sets it to 1000 by
 * hand, to check that drain does not trust it), so a teardown's reading
 * of it is no verdict. The kernel discards an SQE only while it takes
 * SQEs, inside the io_uring_enter that submits them: the counter is read
 * as that call enters and as it returns, and a rise in between is
 * credited to the ring as the kernel's (ring_info.sq_dropped_kernel,
 * sent at teardown). A rise outside any such call was written by the
 * program, or made by an SQPOLL thread, which takes SQEs without a
 * system call: user space says so and judges neither (checker/rules/
 * teardown.c).
 *
 * Cost: only calls that submit (to_submit > 0) of followed processes pay:
 * the descriptor's ring and a read of the counter at entry, and at exit
 * the ring's entry and a second read. The entry's reading is kept in the
 * thread's task storage and in this CPU's copy of the call's state
 * (enter_cache), where the exit finds it without a task-storage lookup
 * unless the thread was switched out meanwhile (a call that waited).
 */
#ifndef __SQ_DROPS_BPF_H
#define __SQ_DROPS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "uringcheck.h"
#include "enter_ring.bpf.h"
#include "enter_state.bpf.h"
#include "rings.bpf.h"

/* Read at both ends of every followed io_uring_enter: two plain loads
 * through an untrusted cast where bpf_rdonly_cast exists, not two helper
 * calls. */
static __always_inline __u32 ring_sq_dropped(__u64 ring)
{
	struct io_rings *r;

	if (btf_id_io_ring_ctx) {
		r = ((struct io_ring_ctx *)bpf_rdonly_cast((void *)ring, btf_id_io_ring_ctx))->rings;
		return r ? r->sq_dropped : 0;
	}
	r = BPF_CORE_READ((struct io_ring_ctx *)ring, rings);
	return r ? BPF_CORE_READ(r, sq_dropped) : 0;
}

/* Where the thread's task storage cannot be created from sys_enter (7.2:
 * bpf/enter_state.bpf.h's enter_begins() gets none), its call's reading
 * waits here, by thread id, as the sync calls' result marks do. */
struct drop_pending_val {
	__u64 ring;
	__u32 before;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);		/* tid */
	__type(value, struct drop_pending_val);
} drop_pending SEC(".maps");

__s64 drop_pending_n;		/* entries put and not yet taken */

/* io_uring_enter(fd, to_submit, min_complete, flags, ...) enters, in a
 * followed thread (@followed), with its task storage @es if it has one. */
/* A call of its own (a static subprogram, verified in its caller's
 * context): its locals, the descriptor lookup's among them, live in its
 * own frame, not in uc_sys_enter's, which every one of that program's
 * call chains counts (6.1's verifier allows 512 bytes for a chain). */
static __noinline void drops_enter(struct enter_state *es, bool followed, __u32 fd,
					__u32 to_submit, __u32 flags)
{
	struct drop_pending_val v = {};
	__u32 tid;
	__u64 ring;

	if (es)
		es->drop_ring = 0;
	if (!followed || !to_submit)
		return;		/* takes no SQE: drops none */
	ring = enter_ring(fd, flags);
	if (!ring)
		return;
	/* Whether the ring is tracked is asked at exit, which looks its
	 * entry up anyway: a ring that is not gets nothing credited. */
	if (es) {
		struct enter_cache *c = enter_cache_here();

		es->drop_ring = ring;
		es->drop_before = ring_sq_dropped(ring);
		/* enter_begins() just made this CPU's copy the thread's */
		if (c && c->task == (__u64)bpf_get_current_task_btf()) {
			c->drop_ring = ring;
			c->drop_before = es->drop_before;
		}
		return;
	}
	if (!bpf_map_lookup_elem(&rings, &ring))
		return;
	tid = (__u32)bpf_get_current_pid_tgid();
	v.ring = ring;
	v.before = ring_sq_dropped(ring);
	if (!bpf_map_update_elem(&drop_pending, &tid, &v, BPF_NOEXIST))
		__sync_fetch_and_add(&drop_pending_n, 1);
	else
		bpf_map_update_elem(&drop_pending, &tid, &v, BPF_EXIST);
}

/* ... and returns: a rise since its entry is the kernel's, except the
 * part another thread's call already credited (mark: the value the last
 * credited rise reached, when it lies inside this call's rise; a mark
 * outside it is from before a program reset the counter). */
static __always_inline void drops_exit(void)
{
	struct drop_pending_val *p;
	struct enter_cache *c;
	struct enter_state *es;
	struct ring_info *ri;
	__u64 ring = 0;
	__u32 now, from, before = 0, tid;

	if ((c = enter_cache_current())) {
		/* The thread stayed on this CPU through its call: the entry's
		 * reading is here (0: none taken). */
		ring = c->drop_ring;
		before = c->drop_before;
		c->drop_ring = 0;
	} else if ((es = bpf_task_storage_get(&enter_states, bpf_get_current_task_btf(), 0, 0)) &&
		   es->drop_ring) {
		ring = es->drop_ring;
		before = es->drop_before;
		es->drop_ring = 0;
	} else if (drop_pending_n > 0) {
		tid = (__u32)bpf_get_current_pid_tgid();
		p = bpf_map_lookup_elem(&drop_pending, &tid);
		if (!p)
			return;
		ring = p->ring;
		before = p->before;
		if (!bpf_map_delete_elem(&drop_pending, &tid))
			__sync_fetch_and_add(&drop_pending_n, -1);
	}
	if (!ring)
		return;
	ri = bpf_map_lookup_elem(&rings, &ring);
	if (!ri)
		return;
	now = ring_sq_dropped(ring);
	if ((__s32)(now - before) <= 0)
		return;
	from = before;
	if ((__s32)(ri->sq_dropped_mark - from) > 0 && (__s32)(now - ri->sq_dropped_mark) >= 0)
		from = ri->sq_dropped_mark;
	if ((__s32)(now - from) > 0) {
		ri->sq_dropped_kernel += now - from;
		ri->sq_dropped_mark = now;
	}
}

#endif /* __SQ_DROPS_BPF_H */
