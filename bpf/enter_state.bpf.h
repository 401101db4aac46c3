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
 * What each submission wants of its call's state, kept per CPU as well:
 * a submission finds it with an array load instead of a task-storage
 * lookup (bpf_task_storage_get was ~30 ns of a fio read's CPU, one per
 * request). It is the current thread's, and of its current call, only
 * while the thread has not been switched out since enter_begins wrote
 * it: then the thread never left this CPU, so any later io_uring_enter of
 * it ran here and wrote it anew (or cleared it), and no other thread ran
 * here to overwrite it. A thread switched out meanwhile (its context
 * switch count moved) takes the task-storage lookup, as before. The
 * thread is named by its task_struct's address and its start time: an
 * entry left by a thread that has exited since is not taken for that of
 * a new thread given the same address (started later) whose count
 * happens to match.
 */
struct enter_cache {
	__u64 task;			/* struct task_struct *, 0: none */
	__u64 start;			/* its start_time */
	__u64 switches;			/* its nvcsw + nivcsw at the write */
	__u64 ts;			/* = enter_state's */
	__u64 stack_id;			/* = enter_state's */
	__u32 session;			/* = enter_state's (never NO_SESSION) */
	__u32 drop_before;		/* = enter_state's (bpf/sq_drops.bpf.h) */
	__u64 drop_ring;		/* = enter_state's */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct enter_cache);
} enter_caches SEC(".maps");

static __always_inline __u64 task_switches(struct task_struct *task)
{
	return task->nvcsw + task->nivcsw;
}

/* This CPU's entry, whoever it is for (NULL only if the map failed). */
static __always_inline struct enter_cache *enter_cache_here(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&enter_caches, &zero);
}

/* The current thread's call state on this CPU, NULL if not known here
 * (then its enter_state says, if it has one). */
static __always_inline struct enter_cache *enter_cache_current(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct enter_cache *c = enter_cache_here();

	if (!c || c->task != (__u64)task || c->switches != task_switches(task) ||
	    c->start != task->start_time)
		return NULL;
	return c;
}

/*
 * A new io_uring_enter of the current thread; @t: its process's entry,
 * NULL if no session follows it (any more: its uringcheck left), when
 * the state of an earlier call must not make uc_submit take it for one of
 * that session's threads. Returns the thread's state if followed.
 */
static __always_inline struct enter_state *enter_begins(struct uc_tracked *t)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct enter_state *es = bpf_task_storage_get(&enter_states, task, 0,
				t ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	struct enter_cache *c = enter_cache_here();

	/* Whatever this CPU kept is no longer this call's (below: written
	 * anew if the thread is followed). */
	if (c)
		c->task = 0;
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
	if (c) {
		c->start = task->start_time;
		c->switches = task_switches(task);
		c->ts = es->ts;
		c->stack_id = 0;
		c->session = es->session;
		c->drop_ring = 0;
		c->task = (__u64)task;
	}
	return es;
}

#endif /* __ENTER_STATE_BPF_H */
