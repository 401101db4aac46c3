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
 *
 * A visit of one process's rings (a sync call judged, a free(), an
 * exit) walks only that process's slots: its tracked entry lists them
 * (ring_slots, UC_PROC_RINGS of them). Walking the whole list there made
 * every pread of a process beside an in-flight READ cost as many steps as
 * the rings that any followed process on the machine had open at once,
 * another instance's included: 13 us a call beside a program holding
 * 1,000 rings, against 0.5 us alone. A process with more rings open than
 * its list holds (until those it had no room for are closed), or whose
 * ring could not be listed at all (proc_rings_unlisted), is visited the
 * old way, and counted (UC_STAT_RING_VISITS_ALL).
 */
#ifndef __RING_INDEX_BPF_H
#define __RING_INDEX_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "rings.bpf.h"
#include "session.bpf.h"
#include "tracked.bpf.h"

#define UC_RING_SLOTS	4096		/* as many as the rings hash holds */
_Static_assert(UC_RING_SLOTS <= 0x1000, "a slot fits a ring pick's 12 bits");
_Static_assert(UC_PROC_RINGS * 12 <= 63, "a ring pick packs its slots below bit 63");

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

/* Set once a ring could not be put in its process's list (the process
 * not in the tracked table): from then on every visit walks the whole
 * list, as one that cannot know its process's rings must. */
__u32 proc_rings_unlisted = 0;

/* Lists slot @slot1 as a ring of process @tgid (a tracked entry's slot
 * taken with a compare-and-swap: two threads may make rings at once). */
static __always_inline void proc_ring_add(__u32 tgid, __u64 slot1)
{
	struct uc_tracked *t = bpf_map_lookup_elem(&tracked, &tgid);

	if (!slot1)
		return;
	if (!t) {
		proc_rings_unlisted = 1;
		return;
	}
#pragma unroll
	for (int j = 0; j < UC_PROC_RINGS; j++)
		if (t->ring_slots[j] == slot1)
			return;
#pragma unroll
	for (int j = 0; j < UC_PROC_RINGS; j++)
		if (!t->ring_slots[j] &&
		    __sync_val_compare_and_swap(&t->ring_slots[j], 0, slot1) == 0)
			return;
	__sync_fetch_and_add(&t->rings_unlisted, 1);
}

/* Slot @slot1 is no longer process @tgid's ring. */
static __always_inline void proc_ring_drop(__u32 tgid, __u64 slot1)
{
	struct uc_tracked *t = bpf_map_lookup_elem(&tracked, &tgid);

	if (!t || !slot1)
		return;
#pragma unroll
	for (int j = 0; j < UC_PROC_RINGS; j++)
		if (t->ring_slots[j] == slot1 &&
		    __sync_val_compare_and_swap(&t->ring_slots[j], slot1, 0) == slot1)
			return;
	/* One the list had no room for: once none is left, the list is
	 * the process's rings again. */
	if (t->rings_unlisted)
		__sync_fetch_and_add(&t->rings_unlisted, -1);
}

static __always_inline void ring_slot_release(__u32 slot1, __u64 ctx, __u32 tgid)
{
	__u32 idx = slot1 - 1;
	__u64 *v;

	if (!slot1)
		return;
	proc_ring_drop(tgid, slot1);
	v = bpf_map_lookup_elem(&ring_slots, &idx);
	if (v)
		__sync_val_compare_and_swap(v, ctx, 0);
}

/*
 * One visit of a process's rings: its slots, copied out of its tracked
 * entry as a number (12 bits each, packed from bit 0; bit 63: walk the
 * whole list instead), so that the bpf_loop step reads them from its
 * context without a lookup of its own, and the context stays small: it
 * sits in frames on call chains 6.1 limits to 512 bytes of stack.
 */
#define RING_PICK_ALL	(1ull << 63)

/* Sets @pk for a visit of process @tgid's rings: the number of steps for
 * bpf_loop, each step mapped to a slot by ring_pick_slot(). A process not
 * followed has no rings of its own listed: none, unless some ring could
 * not be listed. */
static __always_inline __u32 ring_pick_init(__u64 *pk, __u32 tgid)
{
	struct uc_tracked *t = bpf_map_lookup_elem(&tracked, &tgid);
	__u32 n = 0;

	*pk = 0;
	if (proc_rings_unlisted || (t && t->rings_unlisted)) {
		if (t)
			stat_inc(t->session, UC_STAT_RING_VISITS_ALL);
		*pk = RING_PICK_ALL;
		return ring_slots_hi;
	}
	if (!t)
		return 0;
#pragma unroll
	for (int j = 0; j < UC_PROC_RINGS; j++) {
		__u64 s = t->ring_slots[j];

		if (s) {
			*pk |= ((s - 1) & 0xfff) << (12 * n);
			n++;
		}
	}
	return n;
}

/* The list slot step @i of a visit looks at (in *@i); false: none. */
static __always_inline bool ring_pick_slot(__u64 pk, __u64 *i)
{
	if (pk & RING_PICK_ALL)
		return true;
	if (*i >= UC_PROC_RINGS)
		return false;
	*i = (pk >> (12 * *i)) & 0xfff;
	return true;
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
