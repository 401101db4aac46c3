/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Descriptors to files, for the programs on the per-request and
 * per-call paths (a read or write request's pipe, a judged call's
 * channel, the ring behind io_uring_enter's descriptor).
 */
#ifndef __FD_FILE_BPF_H
#define __FD_FILE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "untrusted.bpf.h"

/*
 * The file behind descriptor @fd of the current process, or NULL. On the
 * path of every read and write request (submit_pipe) and judged system
 * call: where bpf_rdonly_cast exists, the task, its file table and the
 * table's length are plain loads through an untrusted cast (the verifier
 * checks them as probe reads, without the trust lookups of
 * bpf/untrusted.bpf.h), and only the slot, a pointer in an array of
 * pointers, needs the helper: one bpf_probe_read_kernel instead of five.
 */
static __always_inline struct file *fd_file(int fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct file **fds, *f = NULL;
	struct fdtable *fdt;

	if (fd < 0)
		return NULL;
	if (btf_id_task_struct) {
		struct files_struct *files =
			((struct task_struct *)bpf_rdonly_cast(task, btf_id_task_struct))->files;

		if (!files)
			return NULL;
		fdt = files->fdt;
		if (!fdt || (unsigned int)fd >= fdt->max_fds)
			return NULL;
		fds = (struct file **)fdt->fd;
	} else {
		fdt = BPF_CORE_READ(task, files, fdt);
		if ((unsigned int)fd >= BPF_CORE_READ(fdt, max_fds))
			return NULL;
		fds = BPF_CORE_READ(fdt, fd);
	}
	if (bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]))
		return NULL;
	return f;
}

/* A file's private data (an io_uring file's: its struct io_ring_ctx):
 * a plain load through an untrusted cast where bpf_rdonly_cast exists. */
static __always_inline __u64 file_private(struct file *f)
{
	if (btf_id_file)
		return (__u64)((struct file *)bpf_rdonly_cast(f, btf_id_file))->private_data;
	return (__u64)BPF_CORE_READ(f, private_data);
}

#endif /* __FD_FILE_BPF_H */
