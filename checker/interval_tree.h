/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The set of user byte ranges in flight in one address space.
 *
 * A treap ordered by range start, each node also keeping the largest end
 * in its subtree, so "which in-flight ranges share a byte with [s, e)"
 * costs O(log n + hits) however many requests are in flight. There is no
 * capacity bound: every in-flight range is compared.
 */
#ifndef UC_INTERVAL_TREE_H
#define UC_INTERVAL_TREE_H

#include <stddef.h>
#include <stdint.h>

struct itree_node {
	uint64_t start, end;		/* [start, end), end > start */
	uint64_t max_end;		/* largest end in this subtree */
	uint32_t prio;
	struct itree_node *left, *right;
	void *owner;			/* the request holding the range */
};

struct itree {
	struct itree_node *root;
	size_t count;
	uint32_t rng;			/* priority generator state */
};

void itree_init(struct itree *t);
/* @n is caller-owned memory; start/end/owner must be set. */
void itree_insert(struct itree *t, struct itree_node *n);
void itree_remove(struct itree *t, struct itree_node *n);
/* Calls @fn for every node overlapping [start, end). */
void itree_query(const struct itree *t, uint64_t start, uint64_t end,
		 void (*fn)(struct itree_node *n, void *arg), void *arg);

#endif
