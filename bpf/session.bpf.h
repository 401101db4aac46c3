/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sessions: one loaded copy of the programs serves every uringcheck
 * instance on the machine (checker/shared.h), each a session with its own
 * settings and counters, found here by its id.
 */
#ifndef __SESSION_BPF_H
#define __SESSION_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "uringcheck.h"

/* Per session: its settings (reap-lag threshold, stack size, owner). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, UC_MAX_SESSIONS);
	__type(key, __u32);
	__type(value, struct uc_session_cfg);
} sessions SEC(".maps");

static __always_inline struct uc_session_cfg *session_cfg(__u32 sid)
{
	return bpf_map_lookup_elem(&sessions, &sid);
}

/* The instance now holding session @sid (0: none). */
static __always_inline __u32 session_owner(__u32 sid)
{
	struct uc_session_cfg *cfg = session_cfg(sid);

	return cfg ? cfg->owner : 0;
}

static __always_inline bool session_owned_by(__u32 sid, __u32 owner)
{
	return owner && session_owner(sid) == owner;
}

/* Per session: UC_STAT__COUNT counters at session * UC_STAT__COUNT. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UC_MAX_SESSIONS * UC_STAT__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static __always_inline void stat_inc(__u32 sid, __u32 which)
{
	__u32 key = (sid % UC_MAX_SESSIONS) * UC_STAT__COUNT + which;
	__u64 *v = bpf_map_lookup_elem(&stats, &key);

	if (v)
		*v += 1;
}

#endif /* __SESSION_BPF_H */
