/* SPDX-License-Identifier: GPL-2.0 */
/* A hash table from 64-bit keys (sequence numbers, kernel pointers) to
 * pointers. Chained, power-of-two buckets, grows at load factor 1. */
#ifndef UC_U64MAP_H
#define UC_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "freelist.h"

struct u64map_entry;

struct u64map {
	struct u64map_entry **buckets;
	size_t nbuckets;		/* power of two */
	size_t count;
	struct freelist spare;		/* entries deleted, for the next puts */
};

void u64map_init(struct u64map *m);
void u64map_free(struct u64map *m);
/* Returns the previous value for @key (NULL if none) and stores @val. */
void *u64map_put(struct u64map *m, uint64_t key, void *val);
void *u64map_get(const struct u64map *m, uint64_t key);
/* Removes @key; returns its value or NULL. */
void *u64map_del(struct u64map *m, uint64_t key);

/* Calls @fn for every entry; @fn may not modify the map. */
void u64map_each(const struct u64map *m,
		 void (*fn)(uint64_t key, void *val, void *arg), void *arg);

#endif
