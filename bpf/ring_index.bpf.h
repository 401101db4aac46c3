/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracked rings as a dense list, so that whatever visits "every ring"
 * or "every ring of this process" pays for the rings that exist, not for
 * the capacity of the rings hash (a bpf_for_each_map_elem over a hash
 * visits all of its 4096 buckets). The liburing uprobe mode did that walk
 * on every call into liburing: perf showed half of a qemu-img bench in it.
 *
 * A ring takes the lowest free slot when it is first tracked and gives it
 * back when its entry leaves the rings hash; ring_slots_hi is one past the
 * highest slot ever taken, the length of every visit. A slot whose ring is
 * no longer in the hash (an entry removed by a path that did not free its
 * slot) is freed by the next visit.
 */
#ifndef __RING_INDEX_BPF_H
#define __RING_INDEX_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "rings.bpf.h"

#define UC_RING_SLOTS	4096		/* as many as the rings hash holds */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, UC_RING_SLOTS);
	__type(key, __u32);
	__type(value, __u64);		/* struct io_ring_ctx *, 0: free */
} ring_slots SEC(".maps");

__u64 ring_slots_hi = 0;

struct slot_claim {
	__u64 ctx;
	__u32 slot1;			/* slot + 1 taken, 0: none */
};

static long claim_step(__u64 i, struct slot_claim *c)
{
	__u32 idx = i;
	__u64 *v = bpf_map_lookup_elem(&ring_slots, &idx);

	if (v && *v == 0 && __sync_val_compare_and_swap(v, 0, c->ctx) == 0) {
		c->slot1 = idx + 1;
		return 1;
	}
	return 0;
}

/* A slot for @ctx (slot + 1), 0 if the list is full. Rings are created
 * rarely; the search is as long as the list. */
static __noinline __u32 ring_slot_claim(__u64 ctx)
{
	struct slot_claim c = { .ctx = ctx };
	__u64 hi;

	bpf_loop(UC_RING_SLOTS, claim_step, &c, 0);
	if (!c.slot1)
		return 0;
	for (int i = 0; i < 8; i++) {
		hi = ring_slots_hi;
		if (hi >= c.slot1 ||
		    __sync_val_compare_and_swap(&ring_slots_hi, hi, c.slot1) == hi)
			break;
	}
	return c.slot1;
}

static __always_inline void ring_slot_release(__u32 slot1, __u64 ctx)
{
	__u32 idx = slot1 - 1;
	__u64 *v;

	if (!slot1)
		return;
	v = bpf_map_lookup_elem(&ring_slots, &idx);
	if (v)
		__sync_val_compare_and_swap(v, ctx, 0);
}

/* The ring in slot @i, and its entry; NULL if the slot is free (a stale
 * slot is freed on the way). */
static __always_inline struct ring_info *ring_at(__u64 i, __u64 *ctx)
{
	__u32 idx = i;
	__u64 *v = bpf_map_lookup_elem(&ring_slots, &idx);
	struct ring_info *ri;
	__u64 key;

	if (!v || !(key = *v))
		return NULL;
	ri = bpf_map_lookup_elem(&rings, &key);
	if (!ri) {
		__sync_val_compare_and_swap(v, key, 0);
		return NULL;
	}
	*ctx = key;
	return ri;
}

#endif /* __RING_INDEX_BPF_H */
