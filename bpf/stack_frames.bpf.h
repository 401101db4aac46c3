/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stack-inflight's kernel part: a request whose range lies in its
 * thread's own stack, and the points where that thread's stack pointer
 * shows the frame holding the range has gone (docs/hazards.md).
 *
 * The thread's own stack is the mapping that holds its *home* stack
 * pointer: for the main thread mm->start_stack (its [stack]), for any
 * other thread the stack pointer it was cloned with (sched_process_fork,
 * the child's saved registers), the top of the stack pthread_create
 * mapped for it. Only that mapping is judged: a coroutine's stack
 * (makecontext, boost.context, seastar: malloc'd or mmapped elsewhere)
 * and a sigaltstack are not the thread's own, so a stack pointer there
 * says nothing about the frames of the thread's own stack, and a range
 * there is never noted. A stack pointer inside the thread's sigaltstack
 * is passed over too, wherever that stack lies.
 *
 * Cost: a thread gets an entry (home, its stack mapping's bounds looked
 * up once and again only when a range falls outside them, the count of
 * its requests in flight with a stack range, the lowest such range not
 * yet judged) when it is cloned, or at its first submission if it is a
 * main thread. System calls and signals pay one load of a global while
 * no thread anywhere holds a stack range in flight, one hash lookup per
 * call of any thread while one does, and a record only when the stack
 * pointer rose above the lowest range not yet judged: after a record that
 * mark moves up to the stack pointer's red-zone bound (everything below
 * it was judged), so a thread that goes on calling from the same depth
 * sends nothing more.
 *
 * bpf_find_vma is v5.17, like bpf_loop, which the checker needs anyway.
 */
#ifndef __STACK_FRAMES_BPF_H
#define __STACK_FRAMES_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "uringcheck.h"
#include "session.bpf.h"
#include "events.bpf.h"
#include "pidns.bpf.h"
#include "fixed_layout.bpf.h"
#include "inflight.bpf.h"
#include "stacks.bpf.h"
#include "tracked.bpf.h"

#define INF_STACK	(1u << 12)	/* an inline range in its thread's stack */
#define UC_RLIMIT_STACK	3		/* uapi, not in the kernel's BTF */

struct stack_thread {
	__u64 home;		/* the stack pointer that names its own stack */
	__u64 lo, hi;		/* the mapping holding home, 0: not looked up */
	__u64 floor;		/* lowest address that mapping can reach */
	__u64 watch;		/* lowest stack range start not yet judged */
	__s64 held;		/* its requests in flight with a stack range */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);		/* thread id (uringcheck's namespace) */
	__type(value, struct stack_thread);
} stack_threads SEC(".maps");

/* Requests in flight with a stack range, every thread: zero spares every
 * system call on the machine the lookup. */
__s64 stack_held_total;

/* A thread of a followed process was cloned onto @sp: its home. */
static __always_inline void stack_thread_born(struct task_struct *child)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(child);
	struct stack_thread st = {};
	__u32 tid = task_pid_in_ns(child);

	st.home = UC_REG(regs, sp);
	st.watch = ~0ULL;	/* floor 0: known once looked up */
	if (tid && st.home)
		bpf_map_update_elem(&stack_threads, &tid, &st, BPF_ANY);
}

/* A thread left (or its image did, at exec): its requests' ends find no
 * entry and count only the total down. */
static __always_inline void stack_thread_gone(__u32 tid)
{
	struct stack_thread *st = bpf_map_lookup_elem(&stack_threads, &tid);

	if (!st)
		return;
	if (st->held > 0)
		__sync_fetch_and_add(&stack_held_total, -st->held);
	bpf_map_delete_elem(&stack_threads, &tid);
}

struct stack_vma {
	__u64 lo, hi;
};

static long stack_vma_cb(struct task_struct *task, struct vm_area_struct *vma,
			 struct stack_vma *m)
{
	m->lo = BPF_CORE_READ(vma, vm_start);
	m->hi = BPF_CORE_READ(vma, vm_end);
	return 0;
}

/* Ranges starting below this are in no live frame of the thread. */
static __always_inline bool above_red_zone(const struct uc_submit *s, __u64 sp)
{
	for (int i = 0; i < UC_INLINE_RANGES; i++) {
		if (i >= s->nr_inline)
			break;
		if (s->ranges[i & (UC_INLINE_RANGES - 1)].addr + UC_RED_ZONE >= sp)
			return true;
	}
	return false;
}

/*
 * A request just classified in the submitting thread: does one of its
 * inline ranges lie in the thread's own stack, at or above the stack
 * pointer's red zone (in a live frame)? Then it is flagged (INF_STACK,
 * UC_SUB_STACK) and counted for the thread. A heap or data buffer lies
 * below a main thread's stack pointer: it costs one register read.
 * Global: verified once.
 */
__noinline int stack_note(struct uc_submit *s, struct inflight_val *v, __u32 tgid)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	struct stack_thread *st, fresh = {};
	__u64 sp, low = ~0ULL, rlim;
	__u32 tid;

	if (!s || !v)
		return 0;
	sp = regs->sp;		/* a trusted pointer: a plain load, no helper call */
	if (!above_red_zone(s, sp))
		return 0;
	tid = v->tid;
	st = bpf_map_lookup_elem(&stack_threads, &tid);
	if (!st && tid == tgid) {
		/* A main thread: its [stack], found from its first request.
		 * It grows down, at most to its limit below its top. */
		fresh.home = BPF_CORE_READ(task, mm, start_stack);
		rlim = BPF_CORE_READ(task, signal, rlim[UC_RLIMIT_STACK].rlim_cur);
		fresh.floor = rlim < fresh.home ? fresh.home - rlim : 0;
		fresh.watch = ~0ULL;
		bpf_map_update_elem(&stack_threads, &tid, &fresh, BPF_NOEXIST);
		st = bpf_map_lookup_elem(&stack_threads, &tid);
	}
	if (!st) {
		/* Started before it was followed, or the table was full. */
		stat_inc(v->session, UC_STAT_STACK_UNKNOWN);
		return 0;
	}
	for (int i = 0; i < UC_INLINE_RANGES; i++) {
		__u64 a;

		if (i >= s->nr_inline)
			break;
		a = s->ranges[i & (UC_INLINE_RANGES - 1)].addr;
		if (a + UC_RED_ZONE < sp || a >= st->home || a < st->floor)
			continue;
		if (!st->hi || a < st->lo) {
			/* Not looked up yet, or a main stack that grew. */
			struct stack_vma m = {};

			/* (the callback's context must be on the stack) */
			bpf_find_vma(task, st->home, stack_vma_cb, &m, 0);
			st->lo = m.lo;
			st->hi = m.hi;
			if (tid != tgid)
				st->floor = st->lo;	/* a fixed mapping */
			if (a < st->lo)
				continue;
		}
		if (a >= st->hi)
			continue;
		if (a < low)
			low = a;
	}
	if (low == ~0ULL)
		return 0;
	v->flags |= INF_STACK;
	s->flags |= UC_SUB_STACK;
	if (low < st->watch)
		st->watch = low;
	__sync_fetch_and_add(&st->held, 1);
	__sync_fetch_and_add(&stack_held_total, 1);
	return 0;
}

/* A request flagged INF_STACK ended (from any thread). */
static __always_inline void stack_request_ended(const struct inflight_val *v)
{
	struct stack_thread *st;
	__u32 tid = v->tid;

	st = bpf_map_lookup_elem(&stack_threads, &tid);
	if (!st || st->held <= 0)
		return;		/* its thread is gone: counted down then */
	__sync_fetch_and_add(&st->held, -1);
	__sync_fetch_and_add(&stack_held_total, -1);
}

/*
 * The current thread shows its stack pointer @sp (a system call's entry,
 * a signal's delivery): if it rose above a stack range the thread holds,
 * within the thread's own stack and not on its sigaltstack, user space
 * is told, with where the thread is. Global: verified once.
 */
__noinline int stack_observe(__u64 sp, __u32 where, __s32 nr)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct uc_frame_gone *e;
	struct stack_thread *st;
	struct uc_tracked *t;
	__u64 ss_sp, ss_size, id;
	__u32 tid, tgid, sid;

	tid = (__u32)current_pid_tgid();
	st = bpf_map_lookup_elem(&stack_threads, &tid);
	/* (watch is ~0 while nothing was noted: compared without adding) */
	if (!st || st->held <= 0 || sp < UC_RED_ZONE || sp - UC_RED_ZONE <= st->watch)
		return 0;
	/* Another stack: a coroutine's, a signal stack elsewhere. */
	if (sp < st->lo || sp >= st->hi)
		return 0;
	/* The thread's sigaltstack, even inside its own stack mapping
	 * (a local array of main): a handler's frames, not the thread's. */
	ss_sp = BPF_CORE_READ(task, sas_ss_sp);
	ss_size = BPF_CORE_READ(task, sas_ss_size);
	if (ss_size && sp >= ss_sp && sp < ss_sp + ss_size)
		return 0;
	/* Everything below this bound is judged now. */
	st->watch = sp - UC_RED_ZONE;
	if (!(t = current_tracked(&tgid)))
		return 0;
	sid = t->session;
	id = capture_stack(sid, tgid);
	e = ev_reserve(sid, sizeof(*e), UC_EV_FRAME_GONE);
	if (!e)
		return 0;
	fill_hdr(&e->hdr, UC_EV_FRAME_GONE, tgid);
	e->sp = sp;
	e->lo = st->lo;
	e->hi = st->hi;
	e->where = where;
	e->nr = nr;
	e->stack_id = id;
	ev_submit(sid, e);
	return 0;
}

#endif /* __STACK_FRAMES_BPF_H */
