/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The processes the profile's and the trace's programs follow
 * (bpf/profile.bpf.c, bpf/trace.bpf.c): every process with -a, else the
 * ones user space names (the started command, -p; load/follow.c) and
 * their children, added at each fork by the includer's
 * sched_process_fork program through follow_child(). A process is not
 * removed at its exit: its tgid stays followed until the run ends.
 *
 * Rings and descriptors are judged "ours" once and the verdict cached
 * with follow_gen, which user space raises after each process it names:
 * a "not ours" verdict cached under an older generation is judged again
 * (the process may have been followed meanwhile).
 */
#ifndef __FOLLOW_BPF_H
#define __FOLLOW_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "pidns.bpf.h"

/* Set by user space before load: -a, every process. */
const volatile bool all_processes = false;

/* The processes followed, by tgid. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);		/* tgid */
	__type(value, __u32);
} follow_targets SEC(".maps");

/* Raised by user space after each process it starts to follow. */
__u32 follow_gen;

static __always_inline bool followed(__u32 tgid)
{
	return (all_processes && pid_visible(tgid)) || bpf_map_lookup_elem(&follow_targets, &tgid);
}

/* At sched_process_fork: @child is followed if @parent is (threads share
 * the tgid and are covered already; a child uringcheck's namespace cannot
 * see has no pid there, 0, and is not). @full, if not NULL, is called when
 * it cannot be (the table is full). */
static __always_inline void follow_child(struct task_struct *parent,
					 struct task_struct *child,
					 void (*full)(void))
{
	__u32 ptgid = task_tgid_in_ns(parent), ctgid = task_tgid_in_ns(child), one = 1;

	if (all_processes || ptgid == ctgid || !ctgid ||
	    !bpf_map_lookup_elem(&follow_targets, &ptgid))
		return;
	if (bpf_map_update_elem(&follow_targets, &ctgid, &one, BPF_ANY) && full)
		full();
}

#endif /* __FOLLOW_BPF_H */
