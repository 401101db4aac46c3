/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel addresses as keys, for the profile's and the trace's programs:
 * hashing a request or ring address, and finding the ring behind an
 * io_uring_enter descriptor.
 */
#ifndef __ADDR_KEYS_BPF_H
#define __ADDR_KEYS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#define UC_ENTER_REGISTERED_RING	(1u << 4)	/* uapi, 5.18 */

/* Fibonacci hashing: request and ring addresses are slab objects whose
 * low bits are constant; the multiply spreads the high ones. */
static __always_inline __u32 addr_hash(__u64 a, __u32 bits)
{
	return (__u32)((a * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

/* A kernel pointer as a number, to hash it: the verifier refuses
 * arithmetic on a typed pointer, and a value read back from map memory is
 * a plain scalar (one inlined per-CPU lookup, no helper call). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[2]);
} uc_launder SEC(".maps");

static __always_inline int as_numbers(const void *a, const void *b, __u64 *na, __u64 *nb)
{
	__u32 zero = 0;
	volatile __u64 *v = bpf_map_lookup_elem(&uc_launder, &zero);

	if (!v)
		return -1;
	v[0] = (__u64)a;
	v[1] = (__u64)b;
	*na = v[0];
	*nb = v[1];
	return 0;
}

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
		struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
		struct file **fds;

		if (fd >= BPF_CORE_READ(fdt, max_fds))
			return 0;
		fds = BPF_CORE_READ(fdt, fd);
		if (bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]))
			return 0;
	}
	if (!f)
		return 0;
	return (__u64)BPF_CORE_READ(f, private_data);
}

#endif
