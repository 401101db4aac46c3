// SPDX-License-Identifier: GPL-2.0
/*
 * The watch table's user-space half (heap_watch.h): a slot's state is
 * changed with the same atomics the kernel side uses; the kernel never
 * frees a slot, so an index a record names stays that release's until
 * given back here.
 */
#define _GNU_SOURCE
#include "heap_watch.h"

#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t table_len(void)
{
	size_t page = sysconf(_SC_PAGESIZE);

	return (sizeof(struct uc_heap_watches) + page - 1) / page * page;
}

bool heap_watch_valid(uint32_t watch)
{
	uint32_t slot = watch & 0xff;

	return watch != UC_HEAP_WATCH_FULL && slot >= 1 && slot <= UC_HEAP_WATCHES;
}

/* Back to FREE; the bucket's count falls if it was still armed (if the
 * kernel consumed it first, the kernel's decrement did it). @gen: the
 * arm given back (-1: whichever). */
static void give_back_slot(struct uc_heap_watches *hw, uint32_t i, int64_t gen)
{
	struct uc_heap_watch *w = &hw->w[i];
	uint64_t armed = UC_WATCH_ARMED;
	uint32_t tgid = __atomic_load_n(&w->tgid, __ATOMIC_ACQUIRE);
	uint32_t sid = __atomic_load_n(&w->session, __ATOMIC_ACQUIRE);

	if (gen >= 0 && (__atomic_load_n(&w->gen, __ATOMIC_ACQUIRE) & 0xffffff) != gen)
		return;		/* not that arm any more: never ours to give */
	if (__atomic_compare_exchange_n(&w->state, &armed, UC_WATCH_FREE, false,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		__atomic_fetch_sub(&hw->count[tgid % UC_HEAP_WATCH_BUCKETS], 1,
				   __ATOMIC_SEQ_CST);
	else if (armed == UC_WATCH_CONSUMED)
		__atomic_store_n(&w->state, UC_WATCH_FREE, __ATOMIC_SEQ_CST);
	else
		return;		/* free already, or being armed */
	/* the session's share (bpf/heap_watch.bpf.h) */
	if (sid < UC_MAX_SESSIONS)
		__atomic_fetch_sub(&hw->held[sid], 1, __ATOMIC_SEQ_CST);
}

void heap_watch_give_back(struct uc_heap_watches *hw, uint32_t watch)
{
	if (hw && heap_watch_valid(watch))
		give_back_slot(hw, (watch & 0xff) - 1, watch >> 8);
}

struct uc_heap_watches *heap_watch_map(int map_fd, uint32_t sid)
{
	struct uc_heap_watches *hw;
	void *p;

	if (map_fd < 0)
		return NULL;
	p = mmap(NULL, table_len(), PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	hw = p;
	/* What an instance that held this session slot before left held
	 * (killed before it gave its slots back): nobody else will. A
	 * CLAIMING slot is being armed right now, not left. */
	for (uint32_t i = 0; i < UC_HEAP_WATCHES; i++) {
		uint64_t st = __atomic_load_n(&hw->w[i].state, __ATOMIC_ACQUIRE);

		if ((st == UC_WATCH_ARMED || st == UC_WATCH_CONSUMED) &&
		    __atomic_load_n(&hw->w[i].session, __ATOMIC_ACQUIRE) == sid)
			give_back_slot(hw, i, -1);
	}
	return hw;
}

void heap_watch_unmap(struct uc_heap_watches *hw)
{
	if (hw)
		munmap(hw, table_len());
}
