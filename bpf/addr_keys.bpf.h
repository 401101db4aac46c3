/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel addresses as keys, for the profile's and the trace's programs:
 * hashing a request or ring address (and, from enter_ring.bpf.h, the
 * ring behind an io_uring_enter descriptor).
 */
#ifndef __ADDR_KEYS_BPF_H
#define __ADDR_KEYS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "enter_ring.bpf.h"

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

/*
 * The slot is per CPU, not per program run: a program that runs in
 * softirq or hardirq on top of ours (a BH workqueue's item, v6.9), or
 * one that runs where ours was preempted, can store between our store
 * and our load. On 7.3 a workqueue function's address once came back as
 * a ring's. So what is read back must equal what was stored (comparing a
 * pointer with a number is allowed to the CAP_PERFMON programs that could
 * store it at all); else store again.
 */
#define UC_LAUNDER_TRIES 4

static __always_inline int as_numbers(const void *a, const void *b, __u64 *na, __u64 *nb)
{
	__u32 zero = 0;
	volatile __u64 *v = bpf_map_lookup_elem(&uc_launder, &zero);

	if (!v)
		return -1;
	for (int i = 0; i < UC_LAUNDER_TRIES; i++) {
		__u64 x, y, kx, ky;

		v[0] = (__u64)a;
		v[1] = (__u64)b;
		x = v[0];
		y = v[1];
		/* Copies the compiler cannot see are equal to x and y: once
		 * x == a is known it would hand on the pointer a itself,
		 * which the verifier refuses to hash. */
		kx = x;
		ky = y;
		barrier_var(kx);
		barrier_var(ky);
		if (x == (__u64)a && y == (__u64)b) {
			*na = kx;
			*nb = ky;
			return 0;
		}
	}
	return -1;
}

#endif
