/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ring behind an io_uring_enter descriptor, for every object that
 * looks at io_uring_enter (the profile, the trace, and the check mode's
 * count of what the kernel itself dropped, bpf/sq_drops.bpf.h).
 */
#ifndef __ENTER_RING_BPF_H
#define __ENTER_RING_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "fd_file.bpf.h"

#define UC_ENTER_REGISTERED_RING	(1u << 4)	/* uapi, 5.18 */

/* The ring behind io_uring_enter's fd: a descriptor, or with
 * IORING_ENTER_REGISTERED_RING (5.18) an index into the thread's
 * registered rings. */
static __always_inline __u64 enter_ring(__u32 fd, __u32 flags)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct file *f = NULL;

	if (flags & UC_ENTER_REGISTERED_RING) {
		struct io_uring_task *tctx = task->io_uring;

		if (!tctx || fd >= 16)
			return 0;
		if (bpf_probe_read_kernel(&f, sizeof(f), &tctx->registered_rings[fd]))
			return 0;
	} else {
		/* one helper call, not five (fd_file.bpf.h) */
		f = fd_file(fd);
	}
	if (!f)
		return 0;
	return file_private(f);
}

#endif /* __ENTER_RING_BPF_H */
