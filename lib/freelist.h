/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Objects of one size kept for reuse instead of freed: the per-request
 * objects of the record readers (a request's tracker entry, its map
 * entries, its timeline slice) are made and freed by the million. In
 * batches of 32 they overflow glibc's per-thread cache (7 of a size), and
 * malloc's and free's slow paths were a quarter of the trace reader's
 * CPU beside a batched fio (perf). At most @cap are kept; the rest are
 * freed. Under AddressSanitizer nothing is kept, so a use after free
 * stays a use after free (make check-asan).
 */
#ifndef UC_FREELIST_H
#define UC_FREELIST_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

#if defined(__SANITIZE_ADDRESS__)
#define FREELIST_KEEPS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FREELIST_KEEPS 0
#endif
#endif
#ifndef FREELIST_KEEPS
#define FREELIST_KEEPS 1
#endif

struct freelist {
	void *head;		/* each kept object's first word links the next */
	size_t n, cap;
};

/* A zeroed object of @size bytes (at least a pointer's), as xcalloc. */
static inline void *freelist_get(struct freelist *fl, size_t size)
{
	void *p = fl->head;

	if (!p)
		return xcalloc(1, size);
	fl->head = *(void **)p;
	fl->n--;
	memset(p, 0, size);
	return p;
}

static inline void freelist_put(struct freelist *fl, void *p)
{
	if (!p)
		return;
	if (!FREELIST_KEEPS || fl->n >= fl->cap) {
		free(p);
		return;
	}
	*(void **)p = fl->head;
	fl->head = p;
	fl->n++;
}

/* Frees what is kept. */
static inline void freelist_drain(struct freelist *fl)
{
	while (fl->head) {
		void *p = fl->head;

		fl->head = *(void **)p;
		free(p);
	}
	fl->n = 0;
}

#endif
