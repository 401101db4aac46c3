/* SPDX-License-Identifier: GPL-2.0 */
/*
 * free-inflight's watch table, user space's half (bpf/heap_watch.bpf.h):
 * mapped at start, this session's slots given back. A release names
 * its slot (struct uc_heap_release.watch); the session that got it, and
 * only that one, gives it back (checker/heap_owner.c says when).
 *
 * A watch value: (generation << 8) | (slot + 1); 0: none;
 * UC_HEAP_WATCH_FULL: the table was full.
 */
#ifndef UC_HEAP_WATCH_H
#define UC_HEAP_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/types.h>
#include "uringcheck.h"

/* @map_fd's table mapped; the slots session @sid's last owner left
 * armed given back. NULL if it cannot be mapped. */
struct uc_heap_watches *heap_watch_map(int map_fd, uint32_t sid);
void heap_watch_unmap(struct uc_heap_watches *hw);
/* A real slot (not 0, not full)? */
bool heap_watch_valid(uint32_t watch);
/* Gives the slot of @watch back (a no-op for 0 and full). */
void heap_watch_give_back(struct uc_heap_watches *hw, uint32_t watch);

#endif
