/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stacks for SQPOLL submissions (docs/stacks.md, "SQPOLL rings"). With
 * IORING_SETUP_SQPOLL the kernel's poller thread submits: the program's
 * thread never enters the kernel for it, and the poller's own stack is
 * the kernel's. The program's call site is its call into liburing that
 * publishes the SQEs (io_uring_submit and its siblings, which store the
 * SQ tail): a uprobe there (attached per process at its first SQPOLL
 * ring, checker/sqpoll_probes.c) takes the stack and notes, per ring,
 * the SQ positions that call publishes. The poller's submit hook takes
 * the stack noted for its SQE's position, or none: then the record says
 * whether any such call was ever seen on the ring.
 *
 * Sound by construction: at the call's entry the SQEs in [*ktail,
 * sqe_tail) are written but not yet visible to the kernel (liburing's
 * __io_uring_flush_sq stores sqe_tail into *ktail only later in the
 * call), so the window is noted before the poller can take any of them,
 * and only SQEs the call really publishes are in it. An SQE published
 * otherwise (the program writing the ring itself, a timeout SQE liburing
 * adds inside the call) is in no window and gets no stack.
 *
 * Positions are the kernel's SQ head counter: io_get_sqe() takes
 * ctx->cached_sq_head++ before io_submit_sqe() fires the submit
 * tracepoint, so the SQE being submitted is at cached_sq_head - 1.
 */
#ifndef __SQPOLL_STACKS_BPF_H
#define __SQPOLL_STACKS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "uringcheck.h"
#include "uprobe_forms.bpf.h"
#include "opcodes.bpf.h"
#include "tracked.bpf.h"
#include "rings.bpf.h"
#include "stacks.bpf.h"

/* The publishing calls remembered per ring: the poller is rarely more
 * than a few calls behind (it takes SQEs as soon as they are visible). */
#define SQ_PUBS		16

#define SQ_SETUP_SQPOLL	(1u << 1)	/* uapi IORING_SETUP_SQPOLL */

/* One call's window: SQ positions [lo, hi), its stack. seq is odd while
 * the slot is written (the poller reads it on another CPU meanwhile). */
struct sq_pub {
	__u32 seq;
	__u32 lo, hi;
	__u32 session;
	__u64 stack_id;
};

struct sq_pubs_val {
	__u64 next;			/* calls noted so far */
	struct sq_pub pub[SQ_PUBS];
};

/* By struct io_ring_ctx address; an entry is made by the first publishing
 * call seen on that ring, and forgotten when a ring is tracked at that
 * address again (ring_track), so an old ring's windows never match a new
 * ring's positions. Only SQPOLL rings of probed processes have one. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct sq_pubs_val);
} sq_pubs SEC(".maps");

/* A new entry's value: read-only data, as it is too large for the BPF
 * stack beside the probe's other locals. */
const volatile __u8 sq_pubs_zero[sizeof(struct sq_pubs_val)] = {};

/* The ring the calling process's descriptor @fd refers to, 0 if none we
 * track. An io_uring file's private_data is its struct io_ring_ctx; any
 * other file's is not the address of a ring in the table. */
static __always_inline __u64 fd_ring(int fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds, *file = NULL;
	__u64 ring;

	if (!fdt || fd < 0 || (__u32)fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	fds = BPF_CORE_READ(fdt, fd);
	if (!fds || bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]) || !file)
		return 0;
	ring = (__u64)BPF_CORE_READ(file, private_data);
	return bpf_map_lookup_elem(&rings, &ring) ? ring : 0;
}

/* The part of liburing's struct io_uring the probe reads, as its ABI
 * fixes it since liburing 2.0 (checked against <liburing.h> at build
 * time: checker/sqpoll_probes.c): the pointers into the mapped rings. */
struct lu_ring_head {
	__u64 khead, ktail, kring_mask, kring_entries, kflags, kdropped;
	__u64 array;			/* unsigned *: NULL without an SQ array */
	__u64 sqes;			/* struct io_uring_sqe * */
};

#define SQ_SETUP_SQE128		(1u << 10)	/* uapi: 128-byte SQEs */
#define SQ_IOSQE_IO_DRAIN	(1u << 1)
#define SQ_IOSQE_BUFFER_SELECT	(1u << 5)
#define SQ_LOOK_AT		8	/* SQEs of a call looked at, at most */

/* A call's SQEs, looked at before taking a stack for them. */
struct sq_need {
	__u64 array, sqes;
	__u32 lo, n, mask, shift;
	__u32 need;
};

/*
 * Might the SQE at position lo + @i be sent to user space, and so need a
 * stack? A superset of what the submit hook sends (on_submit: a request
 * of an opcode that holds memory, a drain, a buffer select, a user_data
 * that may be a context pointer): taking none for a call whose SQEs all
 * hold nothing (an SQPOLL NOP loop) spares a stack copy per call.
 */
static long sq_need_step(__u64 i, struct sq_need *w)
{
	__u32 idx = (w->lo + (__u32)i) & w->mask;
	__u8 head[2] = {};
	__u64 ud = 0, at;

	if (i >= SQ_LOOK_AT || (__u32)i >= w->n)
		return 1;
	if (w->array && bpf_probe_read_user(&idx, sizeof(idx), (void *)(w->array + idx * 4)))
		goto need;
	at = w->sqes + ((__u64)(idx & w->mask) << w->shift);
	if (bpf_probe_read_user(head, sizeof(head), (void *)at) ||
	    bpf_probe_read_user(&ud, sizeof(ud), (void *)(at + 32)))
		goto need;
	if (opcode_unjudged(head[0]) || (head[1] & (SQ_IOSQE_IO_DRAIN | SQ_IOSQE_BUFFER_SELECT)) ||
	    (ud >= 0x10000 && ud < 0x800000000000ULL && !(ud & 7)))
		goto need;
	return 0;
need:
	w->need = 1;
	return 1;
}

/*
 * Entry of io_uring_submit, io_uring_submit_and_wait, ..._timeout,
 * ..._and_get_events (their first argument: the struct io_uring).
 */
UPROBE_PROGRAM(uc_sqpoll_publish)
{
	__u64 lring = PT_REGS_PARM1(ctx), ring, stack_id;
	struct sq_pubs_val *pv;
	struct lu_ring_head h;
	struct uc_tracked *t;
	__u32 sqe[2], ktail = 0, tgid, n, slot;
	__s32 flags_fd[2];
	struct sq_pub *p;

	if (!(t = current_tracked(&tgid)) || !lring)
		return 0;
	/* flags and ring_fd; sqe_head and sqe_tail; khead and ktail */
	if (bpf_probe_read_user(flags_fd, sizeof(flags_fd), (void *)(lring + UC_LU_RING_FLAGS)) ||
	    !(flags_fd[0] & SQ_SETUP_SQPOLL) ||
	    bpf_probe_read_user(sqe, sizeof(sqe), (void *)(lring + UC_LU_SQE_HEAD)) ||
	    sqe[0] == sqe[1] ||	/* nothing new: the call stores no tail */
	    bpf_probe_read_user(&h, sizeof(h), (void *)lring) ||
	    bpf_probe_read_user(&ktail, sizeof(ktail), (void *)h.ktail))
		return 0;
	n = sqe[1] - ktail;
	if (!n || n > 32768)	/* IORING_MAX_ENTRIES: not a window */
		return 0;
	ring = fd_ring(flags_fd[1]);
	if (!ring)
		return 0;
	pv = bpf_map_lookup_elem(&sq_pubs, &ring);
	if (!pv) {
		bpf_map_update_elem(&sq_pubs, &ring, (void *)&sq_pubs_zero, BPF_NOEXIST);
		pv = bpf_map_lookup_elem(&sq_pubs, &ring);
		if (!pv)
			return 0;
	}
	/* A stack only if one of its SQEs may need it (sq_need_step); more
	 * than SQ_LOOK_AT: taken. The window is noted either way. */
	{
		struct sq_need w = { .array = h.array, .sqes = h.sqes, .lo = ktail, .n = n,
				     .shift = flags_fd[0] & SQ_SETUP_SQE128 ? 7 : 6 };

		if (n > SQ_LOOK_AT || !h.sqes ||
		    bpf_probe_read_user(&w.mask, sizeof(w.mask), (void *)h.kring_mask))
			w.need = 1;
		else
			bpf_loop(SQ_LOOK_AT, sq_need_step, &w, 0);
		stack_id = w.need ? capture_stack(t->session, tgid) : 0;
	}
	slot = __sync_fetch_and_add(&pv->next, 1) % SQ_PUBS;
	p = &pv->pub[slot];
	/* Written as a seqlock (x86 keeps stores in order; the compiler is
	 * kept from reordering them). */
	p->seq++;
	asm volatile("" ::: "memory");
	p->lo = ktail;
	p->hi = sqe[1];
	p->session = t->session;
	p->stack_id = stack_id;
	asm volatile("" ::: "memory");
	p->seq++;
	return 0;
}

struct sq_find {
	struct sq_pubs_val *pv;
	__u32 pos;
	__u32 session;
	__u32 found;
	__u64 stack_id;
};

static long sq_find_step(__u64 i, struct sq_find *f)
{
	struct sq_pub *p;
	__u32 s1, lo, hi, sid;
	__u64 id;

	if (i >= SQ_PUBS)
		return 1;
	p = &f->pv->pub[i];
	s1 = *(volatile __u32 *)&p->seq;
	asm volatile("" ::: "memory");
	lo = p->lo;
	hi = p->hi;
	sid = p->session;
	id = p->stack_id;
	asm volatile("" ::: "memory");
	if ((s1 & 1) || s1 != *(volatile __u32 *)&p->seq)
		return 0;	/* being rewritten: not this one's */
	if (f->pos - lo < hi - lo && sid == f->session) {
		f->stack_id = id;	/* 0: capture off (--stack-size=0) */
		f->found = 1;
		return 1;
	}
	return 0;
}

/*
 * The poller's submission @s (its ring in s->ctx) of session @sid: the
 * stack of the call that published it into s->stack_id, or a flag that
 * says why there is none (UC_SUB_SQ_UNPUBLISHED: publishing calls were
 * seen on this ring, none published this SQE; no flag: none seen at
 * all). Global: verified once.
 */
__noinline int sqpoll_stack(struct uc_submit *s, __u32 sid)
{
	struct sq_find f = { .session = sid };
	__u32 head = 0;
	__u64 ring;

	if (!s)
		return 0;
	ring = s->ctx;
	f.pv = bpf_map_lookup_elem(&sq_pubs, &ring);
	if (!f.pv)
		return 0;
	if (bpf_probe_read_kernel(&head, sizeof(head),
				  (void *)(ring + bpf_core_field_offset(struct io_ring_ctx,
									 cached_sq_head)))) {
		s->flags |= UC_SUB_SQ_UNPUBLISHED;
		return 0;
	}
	f.pos = head - 1;
	bpf_loop(SQ_PUBS, sq_find_step, &f, 0);
	if (f.found)
		s->stack_id = f.stack_id;
	else
		s->flags |= UC_SUB_SQ_UNPUBLISHED;
	return 0;
}

#endif /* __SQPOLL_STACKS_BPF_H */
