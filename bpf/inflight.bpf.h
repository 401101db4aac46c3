/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-flight table: every request of a tracked process, from its
 * submission to its end, keyed by its struct io_kiocb address (a
 * zero-copy notification by its own).
 *
 * An open-addressed table over two arrays rather than a BPF hash map.
 * Every request inserts once and removes once, and a BPF hash map pays
 * for each with an allocation, a bucket lock taken with interrupts off
 * and a hash of the key: about a fifth of the checker's cost per request
 * in the benchmark (interrupt toggles are expensive in virtual machines).
 * Here a key lives in one of INF_WINDOW consecutive slots from its home
 * slot (two cache lines of keys); a slot is claimed and released with a
 * compare-and-swap on its key, so there is no lock and no allocation.
 * Both arrays are preallocated: 8 bytes of key (inf_keys, in chunks)
 * and 72 of value (inf_vals) a slot, at least twice --max-inflight slots
 * (a window is full only when sixteen neighbouring slots are taken:
 * counted as UC_STAT_INFLIGHT_FULL).
 * Sixteen, not eight: with a quarter of the slots taken (65,536 requests
 * in flight at the default size, as liburing's poll test does) a window
 * of eight is full once in 65,000 inserts, and a request went untracked
 * in most such runs; a window of sixteen, once in four billion.
 *
 * Ownership: a submission claims a free slot by setting its key to
 * INF_BUSY, writes the value, then publishes its own key (a
 * compare-and-swap, so the value is complete before anyone can find it:
 * a whole-table walk never reads a half-written value). Only the caller
 * whose compare-and-swap releases the key reports the end.
 */
#ifndef __INFLIGHT_BPF_H
#define __INFLIGHT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "uringcheck.h"

#define INF_WINDOW	UC_INF_WINDOW
#define INF_BUSY	1		/* key of a slot being written */

#define INF_REPORTED	(1u << 0)	/* user space knows it: send DONE */
#define INF_ZC_MAIN	(1u << 1)	/* buffer outlives it: notif ends it */
#define INF_NOTIF	(1u << 2)	/* a zero-copy notification */
#define INF_QUIET	(1u << 3)	/* IOSQE_CQE_SKIP_SUCCESS: no CQE on success */
#define INF_HOLDS_MEM	(1u << 4)	/* has user ranges while in flight */
#define INF_TD_SEEN	(1u << 5)	/* reported at a ring's close already */
#define INF_COUNTED	(1u << 6)	/* counted in its ring's inflight */
#define INF_BSEL	(1u << 7)	/* buffer select: in pbuf_reqs */
#define INF_PBUF_HELD	(1u << 8)	/* a held provided buffer of it was sent */
#define INF_SOURCE	(1u << 9)	/* it loads from its ranges */
#define INF_CHANNEL	(1u << 10)	/* its channel was looked at */
#define INF_SQPOLL	(1u << 11)	/* submitted by the SQPOLL thread */
#define INF_SQ_UNPUBLISHED (1u << 12)	/* ... with no stack: UC_SUB_SQ_UNPUBLISHED */
/* Bits 24-31: the SQE's flags, for a record sent after submission
 * (pbuf_report_late). */
#define INF_SQE_SHIFT	24

#define inflight_val uc_inflight	/* struct in uringcheck.h */


/*
 * Sizes set by user space before load (a power of two, inf_mask + 1).
 * The keys come in chunks of inf_chunk_mask + 1, one array value each
 * (UC_INF_CHUNK_MAX in uringcheck.h): a window is one lookup and sixteen
 * loads. As an array of one key per value, each of its slots was a lookup
 * and a NULL check (~500 of the ~32,700 instructions verified at a cold
 * start, and up to sixteen lookups per insert or find at run time). No
 * BTF types: the value size is set at run time.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);	/* read by user space */
	__uint(max_entries, 1);			/* chunks */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u64));	/* keys a chunk * 8; 0: free */
} inf_keys SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uc_inflight);
} inf_vals SEC(".maps");

const volatile __u32 inf_mask = 0;
const volatile __u32 inf_chunk_mask = 0;	/* keys a chunk - 1 */
const volatile __u32 inf_chunk_shift = 0;	/* log2(keys a chunk) */

/* The chunk of keys that holds slot @idx. */
static __always_inline __u64 *inf_chunk(__u32 idx)
{
	__u32 c = idx >> inf_chunk_shift;

	return bpf_map_lookup_elem(&inf_keys, &c);
}

/* Slot @idx's key, NULL past the table. The mask is read-only data, a
 * constant to the verifier: it bounds the offset within the chunk. */
static __always_inline __u64 *inf_key(__u32 idx)
{
	__u64 *keys = inf_chunk(idx);

	return keys ? &keys[idx & inf_chunk_mask] : NULL;
}

/*
 * Which regions of INF_REGION slots may hold a key: a bit each, in
 * (inf_mask + 1) / INF_REGION / 64 words (max_entries set with the table).
 * A teardown visits only regions whose bit is set instead of the whole
 * table: scanning all 262,144 slots cost ~0.35 ms per ring closed with
 * requests in flight and per exit of a process that used io_uring
 * (liburing's read-before-exit closes 2,100 such rings). The claim sets
 * the bit after its key; a scan that finds a region empty clears the bit,
 * then reads the keys again and sets it back if one is taken: a key
 * claimed meanwhile is either read then or sets the bit itself. A region
 * emptied since stays marked until the next scan passes.
 */
#define INF_REGION_SHIFT	6
#define INF_REGION		(1u << INF_REGION_SHIFT)

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} inf_regions SEC(".maps");

static __always_inline __u32 inf_region_words(void)
{
	return (((inf_mask + 1) >> INF_REGION_SHIFT) + 63) >> 6;
}

static __always_inline void inf_region_mark(__u32 idx)
{
	__u32 r = idx >> INF_REGION_SHIFT, w = r >> 6;
	__u64 bit = 1ull << (r & 63), *m = bpf_map_lookup_elem(&inf_regions, &w);

	/* Set once; the read spares the locked instruction after that. */
	if (m && !(*m & bit))
		__sync_fetch_and_or(m, bit);
}

/* Home slot: multiplicative hashing spreads the slab-aligned addresses. */
static __always_inline __u32 inf_home(__u64 key)
{
	return uc_inf_home(key, inf_mask);
}

/* The slot holding @key, or -1 if it is not in flight. Global, like the
 * two below: each is verified once per program, not once per caller (the
 * sixteen-slot loop, inlined at every call site, cost tens of
 * milliseconds of start-up). */
__noinline int inf_find(__u64 key)
{
	__u32 home = inf_home(key);
	__u64 *keys = inf_chunk(home);

	if (!keys)
		return -1;
	/* Unrolled, like the next one: with no back edge the verifier
	 * prunes each slot's states against the last's; a loop's head made
	 * it walk every slot of the window in every state. */
#pragma unroll
	for (__u32 i = 0; i < INF_WINDOW; i++) {
		__u32 idx = uc_inf_slot(home, i, inf_chunk_mask);

		if (keys[idx & inf_chunk_mask] == key)
			return idx;
	}
	return -1;
}

static __always_inline struct inflight_val *inf_val(int slot)
{
	__u32 idx = slot;

	return bpf_map_lookup_elem(&inf_vals, &idx);
}

/* Claims slot @idx (@k its key) for @key and stores @v there, if free. */
static __always_inline bool inf_claim(__u64 *k, __u32 idx, __u64 key,
				      const struct inflight_val *v)
{
	struct inflight_val *val;

	if (*k || __sync_val_compare_and_swap(k, 0, INF_BUSY) != 0)
		return false;
	inf_region_mark(idx);
	val = bpf_map_lookup_elem(&inf_vals, &idx);
	if (val)
		*val = *v;
	__sync_val_compare_and_swap(k, INF_BUSY, key);
	return true;
}

#define INF_PRESENT	(-2)

/*
 * Claims a free slot for @key and stores @v there: 0, or -1 if none is
 * free, or INF_PRESENT (nothing stored) if @key is in the table already
 * (the kernel reuses a request's memory only after it ended: that one
 * ended unseen, and the caller ends it before inserting again). One pass
 * over the window finds both, the key and the first free slot: a search
 * for the key and then a claim were two passes (and two calls, two home
 * hashes, two chunk lookups) on every submission. A slot taken by
 * another CPU between the pass and the claim sends it on to the slots
 * after it.
 */
__noinline int inf_insert(__u64 key, const struct inflight_val *v)
{
	__u32 home = inf_home(key), first = INF_WINDOW;
	__u64 *keys = inf_chunk(home);

	if (!v || !keys)
		return -1;
#pragma unroll
	for (__u32 i = 0; i < INF_WINDOW; i++) {
		__u64 k = keys[uc_inf_slot(home, i, inf_chunk_mask) & inf_chunk_mask];

		if (k == key)
			return INF_PRESENT;
		if (!k && first == INF_WINDOW)
			first = i;
	}
#pragma unroll
	for (__u32 i = 0; i < INF_WINDOW; i++) {
		__u32 idx = uc_inf_slot(home, i, inf_chunk_mask);

		if (i >= first && inf_claim(&keys[idx & inf_chunk_mask], idx, key, v))
			return 0;
	}
	return -1;
}

/* Frees @slot if it still holds @key: true for the one caller that did. */
static __always_inline bool inf_release(int slot, __u64 key)
{
	__u64 *k = inf_key(slot);

	return k && __sync_val_compare_and_swap(k, key, 0) == key;
}

#endif /* __INFLIGHT_BPF_H */
