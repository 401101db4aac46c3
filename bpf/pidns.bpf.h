/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pids as uringcheck sees them: those of its own PID namespace.
 *
 * The kernel's helpers and task_struct's pid and tgid are the initial
 * namespace's. Run in a container (or WSL2, or `unshare --pid`),
 * uringcheck, its target and the user know only their namespace's
 * numbers: user space follows the target by the pid fork() gave it, reads
 * /proc by it and prints it. So every pid a program compares with a key
 * user space made, or sends to user space, goes through here:
 *
 *   current_pid_tgid()     for bpf_get_current_pid_tgid()
 *   current_tid_into(p)    the thread id into a record's tid (and pad)
 *   task_tgid_in_ns(t)     for t->tgid
 *   task_pid_in_ns(t)      for t->pid (a thread id)
 *
 * A task uringcheck's namespace cannot see (one outside it, on the host
 * or in another container) has no number there: 0, a pid nothing
 * follows. Pids used only as the programs' own keys (a thread's pending
 * call) may stay global.
 *
 * uc_pidns_ino is 0 in the initial namespace (lib/pidns.c): the verifier
 * knows the read-only value and prunes the translation, so the host runs
 * the plain helper and loads exactly as before.
 */
#ifndef __PIDNS_BPF_H
#define __PIDNS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

/* Set by user space before load: stat() of /proc/self/ns/pid, the device
 * in the kernel's encoding (lib/pidns.c). Both 0: the initial namespace. */
const volatile __u64 uc_pidns_dev = 0;
const volatile __u64 uc_pidns_ino = 0;

#define UC_PIDNS_MAX_LEVEL	32	/* MAX_PID_NS_LEVEL */

/* The namespace's level plus one, learnt from the first task of it that
 * is translated (a fork by uringcheck itself at the latest: lib/pidns.c);
 * 0 until then. Every task sees it at the same level, so racing writers
 * write the same value. */
__u32 uc_pidns_level1 = 0;

/* @pid's struct upid at @level (pid->numbers[], a flexible array). */
static __always_inline struct upid *pidns_upid(struct pid *pid, __u32 level)
{
	return (void *)pid + bpf_core_field_offset(struct pid, numbers) +
	       (__u64)level * bpf_core_type_size(struct upid);
}

/* @pid's number in our namespace (the kernel's pid_nr_ns()); 0 if it has
 * none there, or none known yet (a task of a namespace below ours seen
 * before any of ours). */
static __always_inline __u32 pidns_nr(struct pid *pid)
{
	__u32 top, level = uc_pidns_level1;
	struct upid *u;

	if (!pid)
		return 0;
	top = BPF_CORE_READ(pid, level);
	/* Not known yet: is it a task of our namespace itself? */
	level = level ? level - 1 : top;
	if (level > top || level > UC_PIDNS_MAX_LEVEL)
		return 0;	/* in a namespace above ours */
	u = pidns_upid(pid, level);
	if (BPF_CORE_READ(u, ns, ns.inum) != uc_pidns_ino)
		return 0;	/* beside ours, or not known */
	if (!uc_pidns_level1)
		uc_pidns_level1 = level + 1;
	return BPF_CORE_READ(u, nr);
}

/* Any task pointer (probe reads only). */
static __always_inline __u32 pidns_task_pid(struct task_struct *t)
{
	return pidns_nr(BPF_CORE_READ(t, thread_pid));
}

static __always_inline __u32 pidns_task_tgid(struct task_struct *t)
{
	return pidns_nr(BPF_CORE_READ(t, group_leader, thread_pid));
}

/* @t: a task the program was handed (a tp_btf argument). */
static __always_inline __u32 task_tgid_in_ns(struct task_struct *t)
{
	return uc_pidns_ino ? pidns_task_tgid(t) : t->tgid;
}

static __always_inline __u32 task_pid_in_ns(struct task_struct *t)
{
	return uc_pidns_ino ? pidns_task_pid(t) : t->pid;
}

/* A pid of a task our namespace sees (-a: every process it sees). On the
 * host, 0 too: the idle task, as before. */
static __always_inline bool pid_visible(__u32 pid)
{
	return pid || !uc_pidns_ino;
}

/*
 * bpf_get_current_pid_tgid() in our namespace: tgid << 32 | tid.
 *
 * UC_PIDNS_HELPER_ONLY (the checker's object): the helper alone, its
 * answer in a per-CPU scratch value and its keys in read-only data, so
 * that nothing lands on the BPF stack and no register lives across a
 * call. The checker calls this up to six calls deep, near the verifier's
 * 512-byte combined stack (6.1 and 6.12 count every slot the compiler
 * lays out, the host's dead branch included), and at the limit of eight
 * frames: the walk below would not fit. A task of a namespace below ours
 * then reads 0 (not followed); uc_fork counts such a child instead of
 * following it, and the run warns (UC_STAT_PROCS_NS_BELOW).
 */
#ifdef UC_PIDNS_HELPER_ONLY
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bpf_pidns_info);
} uc_pidns_scratch SEC(".maps");

const volatile __u32 uc_pidns_scratch_key = 0;

static __always_inline __u64 current_pid_tgid(void)
{
	struct bpf_pidns_info *ns;

	if (!uc_pidns_ino)
		return bpf_get_current_pid_tgid();
	ns = bpf_map_lookup_elem(&uc_pidns_scratch, (const void *)&uc_pidns_scratch_key);
	if (!ns)
		return 0;
	/* Zeroed when the task is not of our namespace itself. */
	bpf_get_ns_current_pid_tgid(uc_pidns_dev, uc_pidns_ino, ns, sizeof(*ns));
	/* Looked up again rather than kept across the call. */
	ns = bpf_map_lookup_elem(&uc_pidns_scratch, (const void *)&uc_pidns_scratch_key);
	return ns ? (__u64)ns->tgid << 32 | ns->pid : 0;
}

/* The current thread's id into @tid_pad[0], where the helper may write
 * the tgid into @tid_pad[1] (a header's tid and pad: the caller zeroes
 * the pad after): the memory at hand takes the answer, no register or
 * stack slot does. */
static __always_inline void current_tid_into(__u32 *tid_pad)
{
	if (!uc_pidns_ino)
		tid_pad[0] = (__u32)bpf_get_current_pid_tgid();
	else
		bpf_get_ns_current_pid_tgid(uc_pidns_dev, uc_pidns_ino, (void *)tid_pad,
					    sizeof(struct bpf_pidns_info));
}

/* @t (a tp_btf argument) is of a namespace below ours. */
static __always_inline bool task_below_ns(struct task_struct *t)
{
	return uc_pidns_ino && uc_pidns_level1 &&
	       BPF_CORE_READ(t, thread_pid, level) > uc_pidns_level1 - 1;
}
#else
static __always_inline __u64 current_pid_tgid(void)
{
	struct bpf_pidns_info ns;
	struct task_struct *t;

	if (!uc_pidns_ino)
		return bpf_get_current_pid_tgid();
	/* The common case: a task of our namespace itself (5.7+). */
	if (!bpf_get_ns_current_pid_tgid(uc_pidns_dev, uc_pidns_ino, &ns, sizeof(ns)))
		return (__u64)ns.tgid << 32 | ns.pid;
	/* One below it (the target made its own), or outside it. */
	t = (struct task_struct *)bpf_get_current_task();
	return (__u64)pidns_task_tgid(t) << 32 | pidns_task_pid(t);
}

/* As above (the checker's form), for a fragment either object includes. */
static __always_inline void current_tid_into(__u32 *tid_pad)
{
	tid_pad[0] = (__u32)current_pid_tgid();
}
#endif

#endif /* __PIDNS_BPF_H */
