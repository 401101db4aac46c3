// SPDX-License-Identifier: GPL-2.0
#include "u64map.h"

#include <stdlib.h>

#include "xalloc.h"

struct u64map_entry {
	struct u64map_entry *next;
	uint64_t key;
	void *val;
};

static size_t slot(const struct u64map *m, uint64_t key)
{
	/* Kernel pointers and sequence numbers have poor low bits. */
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return key & (m->nbuckets - 1);
}

void u64map_init(struct u64map *m)
{
	m->nbuckets = 64;
	m->count = 0;
	m->buckets = xcalloc(m->nbuckets, sizeof(*m->buckets));
	/* a map of requests in flight turns its entries over at the I/O
	 * rate: a batch's worth is kept */
	m->spare = (struct freelist){ .cap = 256 };
}

void u64map_free(struct u64map *m)
{
	for (size_t i = 0; i < m->nbuckets; i++) {
		struct u64map_entry *e = m->buckets[i], *n;

		for (; e; e = n) {
			n = e->next;
			free(e);
		}
	}
	free(m->buckets);
	freelist_drain(&m->spare);
	m->buckets = NULL;
	m->nbuckets = m->count = 0;
}

static void grow(struct u64map *m)
{
	struct u64map old = *m;

	m->nbuckets *= 2;
	m->buckets = xcalloc(m->nbuckets, sizeof(*m->buckets));
	for (size_t i = 0; i < old.nbuckets; i++) {
		struct u64map_entry *e = old.buckets[i], *n;

		for (; e; e = n) {
			size_t s = slot(m, e->key);

			n = e->next;
			e->next = m->buckets[s];
			m->buckets[s] = e;
		}
	}
	free(old.buckets);
}

void *u64map_put(struct u64map *m, uint64_t key, void *val)
{
	size_t s = slot(m, key);
	struct u64map_entry *e;

	for (e = m->buckets[s]; e; e = e->next) {
		if (e->key == key) {
			void *prev = e->val;

			e->val = val;
			return prev;
		}
	}
	e = freelist_get(&m->spare, sizeof(*e));
	e->key = key;
	e->val = val;
	e->next = m->buckets[s];
	m->buckets[s] = e;
	if (++m->count > m->nbuckets)
		grow(m);
	return NULL;
}

void *u64map_get(const struct u64map *m, uint64_t key)
{
	for (struct u64map_entry *e = m->buckets[slot(m, key)]; e; e = e->next)
		if (e->key == key)
			return e->val;
	return NULL;
}

void *u64map_del(struct u64map *m, uint64_t key)
{
	struct u64map_entry **pp = &m->buckets[slot(m, key)], *e;

	for (; (e = *pp); pp = &e->next) {
		if (e->key == key) {
			void *val = e->val;

			*pp = e->next;
			freelist_put(&m->spare, e);
			m->count--;
			return val;
		}
	}
	return NULL;
}

void u64map_each(const struct u64map *m,
		 void (*fn)(uint64_t key, void *val, void *arg), void *arg)
{
	for (size_t i = 0; i < m->nbuckets; i++)
		for (struct u64map_entry *e = m->buckets[i]; e; e = e->next)
			fn(e->key, e->val, arg);
}
