// SPDX-License-Identifier: GPL-2.0
/*
 * The interval tree against a brute-force model: random inserts, removals
 * and queries, including empty, touching, nested and one-byte ranges.
 * Prints "ok" and exits 0, or the first disagreement and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>

#include "interval_tree.h"

#define N 2000

static struct itree_node nodes[N];
static int live[N];
static int hits[N];

static void mark(struct itree_node *n, void *arg)
{
	(void)arg;
	hits[n - nodes]++;
}

int main(void)
{
	struct itree t;
	unsigned int seed = 12345;

	itree_init(&t);
	for (int round = 0; round < 200000; round++) {
		int i = rand_r(&seed) % N, op = rand_r(&seed) % 3;

		if (op == 0 && !live[i]) {
			nodes[i].start = rand_r(&seed) % 100000;
			nodes[i].end = nodes[i].start + 1 + rand_r(&seed) % (round % 7 ? 64 : 5000);
			nodes[i].owner = &nodes[i];
			itree_insert(&t, &nodes[i]);
			live[i] = 1;
		} else if (op == 1 && live[i]) {
			itree_remove(&t, &nodes[i]);
			live[i] = 0;
		} else {
			uint64_t qs = rand_r(&seed) % 100000, qe = qs + rand_r(&seed) % 300;

			for (int k = 0; k < N; k++)
				hits[k] = 0;
			itree_query(&t, qs, qe, mark, NULL);
			for (int k = 0; k < N; k++) {
				int want = qs < qe && live[k] && nodes[k].start < qe && qs < nodes[k].end;

				if (hits[k] != want) {
					printf("round %d: [%llu,%llu) vs node [%llu,%llu): got %d want %d\n",
					       round, (unsigned long long)qs, (unsigned long long)qe,
					       (unsigned long long)nodes[k].start,
					       (unsigned long long)nodes[k].end, hits[k], want);
					return 1;
				}
			}
		}
	}
	printf("ok (%zu live)\n", t.count);
	return 0;
}
