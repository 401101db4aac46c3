// SPDX-License-Identifier: GPL-2.0
/*
 * The processes the profile's and the trace's programs follow, named by
 * user space (bpf/follow.bpf.h): the started command or -p's process;
 * their children are added by the programs themselves.
 */
#include "follow.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int uc_follow_pid(struct bpf_map *targets, uint32_t *gen, pid_t pid)
{
	uint32_t key = pid, one = 1;

	if (bpf_map__update_elem(targets, &key, sizeof(key), &one, sizeof(one),
				 BPF_ANY)) {
		fprintf(stderr, "uringcheck: cannot follow pid %d: %s\n", pid,
			strerror(errno));
		return -1;
	}
	/* Rings of a running process seen before it was followed were
	 * judged "not ours": a new generation makes those verdicts stale. */
	__atomic_add_fetch(gen, 1, __ATOMIC_SEQ_CST);
	return 0;
}
