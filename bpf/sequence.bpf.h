/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sequence numbers (requests, calls, captures, teardowns): unique, never
 * 0, not ordered. Per CPU, so that instances and threads submitting on
 * different CPUs do not bounce one shared counter's cache line between
 * them on every request: a count per CPU, with the CPU in the low bits.
 */
#ifndef __SEQUENCE_BPF_H
#define __SEQUENCE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} seq_counter SEC(".maps");

static __always_inline __u64 new_seq(void)
{
	__u32 zero = 0;
	__u64 *c = bpf_map_lookup_elem(&seq_counter, &zero);

	if (!c)
		return 0;
	/* Atomic: a program in interrupt context may bump it meanwhile. */
	return ((__sync_fetch_and_add(c, 1) + 1) << 12) |
	       (bpf_get_smp_processor_id() & 0xfff);
}

#endif /* __SEQUENCE_BPF_H */
