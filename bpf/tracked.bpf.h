/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The processes the checker follows, by tgid, each with the session
 * that follows it (the process tree programs in uringcheck.bpf.c add
 * and remove them).
 */
#ifndef __TRACKED_BPF_H
#define __TRACKED_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "pidns.bpf.h"
#include "uringcheck.h"

/* Every process followed, by tgid, with the session that follows it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);		/* tgid */
	__type(value, struct uc_tracked);
} tracked SEC(".maps");

/* The current process's entry if it is followed (by any session). */
static __always_inline struct uc_tracked *current_tracked(__u32 *tgid)
{
	*tgid = current_pid_tgid() >> 32;
	return bpf_map_lookup_elem(&tracked, tgid);
}

#endif /* __TRACKED_BPF_H */
