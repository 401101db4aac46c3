/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per thread, its current io_uring_enter: when it began and the stack
 * captured for it. Every request that call submits is stamped with that
 * time (within microseconds of its own submission: io_uring submits at
 * the start of the call), and shares the capture: one clock read and one
 * capture per call instead of per request. Task-local storage, found
 * from the task itself without hashing.
 */
#ifndef __ENTER_STATE_BPF_H
#define __ENTER_STATE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "uringcheck.h"
#include "session.bpf.h"

struct enter_state {
	__u64 ts;			/* bpf_ktime_get_ns() at sys_enter */
	__u64 stack_id;			/* capture for this call, 0 if none yet */
	__u32 session;			/* the session following the thread */
	/* reap lag: the other system call the thread is in, since when
	 * (bpf/syscalls.bpf.h, blocking_begins) */
	__u32 sys_nr;
	__u64 sys_ts;			/* 0: none */
	__u32 sync_nr;			/* a sync call sent, its result wanted */
	/* the SQ drop counter as this call entered (bpf/sq_drops.bpf.h) */
	__u32 drop_before;
	__u64 drop_ring;		/* ... of this ring, 0: not read */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct enter_state);
} enter_states SEC(".maps");

#define ENTER_NO_SESSION	0xffffffffu

/*
 * A new io_uring_enter of the current thread; @t: its process's entry,
 * NULL if no session follows it (any more: its uringcheck left), when
 * the state of an earlier call must not make uc_submit take it for one of
 * that session's threads. Returns the thread's state if followed.
 */
static __always_inline struct enter_state *enter_begins(struct uc_tracked *t)
{
	struct enter_state *es = bpf_task_storage_get(&enter_states,
				bpf_get_current_task_btf(), 0,
				t ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);

	if (!es) {
		if (t)
			stat_inc(t->session, UC_STAT_TASK_STORAGE);
		return NULL;
	}
	if (!t) {
		es->session = ENTER_NO_SESSION;
		es->drop_ring = 0;
		return NULL;
	}
	es->ts = bpf_ktime_get_ns();
	es->stack_id = 0;
	es->session = t->session;
	es->sys_ts = 0;		/* waiting here is not being elsewhere */
	return es;
}

#endif /* __ENTER_STATE_BPF_H */
