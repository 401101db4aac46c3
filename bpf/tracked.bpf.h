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
#include "session.bpf.h"
#include "uringcheck.h"

/* Every process followed, by tgid, with the session that follows it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);		/* tgid */
	__type(value, struct uc_tracked);
} tracked SEC(".maps");

/*
 * --check -a: the session (its id + 1; 0: none) that takes every process
 * that makes a ring while no session follows it. Set and cleared by that
 * instance (checker/session.c, session_take_all); one at a time.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} all_session SEC(".maps");

/* The current process, taken by the --check -a session if there is one:
 * its entry, or NULL. Only at a ring's creation (a rare event): every
 * other hook of an unfollowed process stays one lookup. A process our
 * PID namespace cannot see (tgid 0) is not taken. */
static __always_inline struct uc_tracked *take_for_all(__u32 tgid)
{
	struct uc_tracked t = { .state = UC_TRACKED };
	__u32 zero = 0, *v = bpf_map_lookup_elem(&all_session, &zero);

	if (!v || !*v || !tgid)
		return NULL;
	t.session = *v - 1;
	/* its instance gone without clearing it */
	if (!session_owner(t.session))
		return NULL;
	/* NOEXIST: a session that began following it meanwhile keeps it */
	bpf_map_update_elem(&tracked, &tgid, &t, BPF_NOEXIST);
	return bpf_map_lookup_elem(&tracked, &tgid);
}

/* The current process's entry if it is followed (by any session). */
static __always_inline struct uc_tracked *current_tracked(__u32 *tgid)
{
	*tgid = current_pid_tgid() >> 32;
	return bpf_map_lookup_elem(&tracked, tgid);
}

#endif /* __TRACKED_BPF_H */
