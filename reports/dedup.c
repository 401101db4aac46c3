// SPDX-License-Identifier: GPL-2.0
#include "dedup.h"

#include <stdlib.h>
#include <string.h>

struct uc_dedup_entry {
	uint64_t key;
	uint64_t count;
	char *what;
	struct uc_dedup_entry *next;
};

uint64_t uc_key_mix(uint64_t h, uint64_t v)
{
	/* splitmix64 finaliser over the combination */
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

void dedup_init(struct uc_dedup *d)
{
	d->nslots = 256;
	d->count = 0;
	d->slots = calloc(d->nslots, sizeof(*d->slots));
}

void dedup_free(struct uc_dedup *d)
{
	for (size_t i = 0; d->slots && i < d->nslots; i++) {
		struct uc_dedup_entry *e = d->slots[i], *n;

		for (; e; e = n) {
			n = e->next;
			free(e->what);
			free(e);
		}
	}
	free(d->slots);
	d->slots = NULL;
}

bool dedup_first(struct uc_dedup *d, uint64_t key, const char *what)
{
	struct uc_dedup_entry **head, *e;

	if (!d->slots)
		return true;	/* out of memory earlier: never hide one */
	head = &d->slots[key & (d->nslots - 1)];
	for (e = *head; e; e = e->next) {
		if (e->key == key) {
			e->count++;
			return false;
		}
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return true;
	e->key = key;
	e->count = 1;
	e->what = strdup(what ? what : "");
	e->next = *head;
	*head = e;
	d->count++;
	return true;
}

size_t dedup_print_repeats(const struct uc_dedup *d, FILE *out)
{
	size_t n = 0;

	for (size_t i = 0; d->slots && i < d->nslots; i++)
		for (struct uc_dedup_entry *e = d->slots[i]; e; e = e->next)
			if (e->count > 1) {
				/* The repeats: the lines add up to the count above. */
				fprintf(out, "  %llu more x %s\n",
					(unsigned long long)(e->count - 1), e->what ? e->what : "");
				n++;
			}
	return n;
}

uint64_t dedup_count(const struct uc_dedup *d, uint64_t key)
{
	if (!d->slots)
		return 0;
	for (struct uc_dedup_entry *e = d->slots[key & (d->nslots - 1)]; e; e = e->next)
		if (e->key == key)
			return e->count;
	return 0;
}
