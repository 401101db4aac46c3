// SPDX-License-Identifier: GPL-2.0
/*
 * lib/u64map.c against a plain array of the same entries: random puts,
 * gets and deletes over a small key space (deletions in every position
 * of a chain, entries reused from the map's spares), keys that differ in
 * their high bits only, key 0, growth past many doublings, and
 * u64map_each visiting each entry once. Prints
 * "ok" and exits 0, or the first disagreement and exits 1.
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "u64map.h"

#define KEYS 512

static int fails;

#define CHECK(c, ...) do { if (!(c)) { printf("FAIL %s:%d: ", __FILE__, __LINE__); \
	printf(__VA_ARGS__); printf("\n"); if (++fails > 10) exit(1); } } while (0)

struct ref {
	uint64_t key[KEYS];
	uintptr_t val[KEYS];	/* 0: absent */
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct seen {
	const struct ref *r;
	int n, bad;
};

static void count_cb(uint64_t key, void *val, void *arg)
{
	struct seen *sn = arg;

	sn->n++;
	for (int i = 0; i < KEYS; i++)
		if (sn->r->key[i] == key) {
			if (sn->r->val[i] != (uintptr_t)val)
				sn->bad++;
			return;
		}
	sn->bad++;
}

static void agree(const struct u64map *m, const struct ref *r, const char *when)
{
	struct seen sn = { .r = r };
	int live = 0;

	for (int i = 0; i < KEYS; i++) {
		live += r->val[i] != 0;
		CHECK((uintptr_t)u64map_get(m, r->key[i]) == r->val[i],
		      "%s: key %llx gives %p, want %lx", when, (unsigned long long)r->key[i],
		      u64map_get(m, r->key[i]), (unsigned long)r->val[i]);
	}
	CHECK(m->count == (size_t)live, "%s: count %zu, want %d", when, m->count, live);
	u64map_each(m, count_cb, &sn);
	CHECK(sn.n == live && !sn.bad, "%s: each visited %d (%d wrong), want %d", when, sn.n,
	      sn.bad, live);
}

static void run(const char *name, uint64_t (*key_of)(int i), int ops, uint64_t seed)
{
	struct u64map m;
	struct ref r;
	char when[64];

	u64map_init(&m);
	for (int i = 0; i < KEYS; i++) {
		r.key[i] = key_of(i);
		r.val[i] = 0;
	}
	for (int op = 0; op < ops; op++) {
		int i = rnd(&seed) % KEYS;
		uintptr_t v = (rnd(&seed) % 1000) + 1;

		switch (rnd(&seed) % 3) {
		case 0:
			CHECK((uintptr_t)u64map_put(&m, r.key[i], (void *)v) == r.val[i],
			      "%s: put of %llx returned a wrong previous value", name,
			      (unsigned long long)r.key[i]);
			r.val[i] = v;
			break;
		case 1:
			CHECK((uintptr_t)u64map_del(&m, r.key[i]) == r.val[i],
			      "%s: del of %llx returned a wrong value", name,
			      (unsigned long long)r.key[i]);
			r.val[i] = 0;
			break;
		default:
			CHECK((uintptr_t)u64map_get(&m, r.key[i]) == r.val[i],
			      "%s: get of %llx", name, (unsigned long long)r.key[i]);
		}
		if (op % 997 == 0) {
			snprintf(when, sizeof(when), "%s, op %d", name, op);
			agree(&m, &r, when);
		}
	}
	agree(&m, &r, name);
	/* empty it: every deletion shifts what follows */
	for (int i = 0; i < KEYS; i++) {
		CHECK((uintptr_t)u64map_del(&m, r.key[i]) == r.val[i], "%s: final del", name);
		r.val[i] = 0;
	}
	agree(&m, &r, name);
	u64map_free(&m);
}

static uint64_t seq_key(int i) { return (uint64_t)i; }		/* key 0 too */
static uint64_t ptr_key(int i) { return 0xffff888000000000ull + (uint64_t)i * 512; }
static uint64_t wide_key(int i) { return (uint64_t)i << 40 | 7; }

int main(void)
{
	alarm(60);	/* a broken chain loops: a failure, not a hang */
	run("sequence numbers", seq_key, 200000, 1);
	run("kernel pointers", ptr_key, 200000, 2);
	run("high bits only", wide_key, 200000, 3);
	/* the table at its fullest, then emptied down to nothing */
	{
		struct u64map m;

		u64map_init(&m);
		for (uint64_t k = 0; k < 100000; k++)
			u64map_put(&m, k * 4096, (void *)(uintptr_t)(k + 1));
		for (uint64_t k = 0; k < 100000; k += 2)
			CHECK(u64map_del(&m, k * 4096) == (void *)(uintptr_t)(k + 1), "del %llu",
			      (unsigned long long)k);
		for (uint64_t k = 0; k < 100000; k++)
			CHECK(u64map_get(&m, k * 4096) == (k % 2 ? (void *)(uintptr_t)(k + 1) : NULL),
			      "get %llu after deleting the even ones", (unsigned long long)k);
		CHECK(m.count == 50000, "count %zu, want 50000", m.count);
		u64map_free(&m);
	}
	if (fails)
		return 1;
	printf("ok\n");
	return 0;
}
