/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One report per unique problem: findings with the same key (kind plus
 * the call sites involved, computed by the checker) are printed once and
 * counted; the end-of-run summary lists the ones that repeated.
 */
#ifndef UC_DEDUP_H
#define UC_DEDUP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct uc_dedup_entry;

struct uc_dedup {
	struct uc_dedup_entry **slots;
	size_t nslots, count;
};

/* Mixes @v into the running key @h. */
uint64_t uc_key_mix(uint64_t h, uint64_t v);

void dedup_init(struct uc_dedup *d);
void dedup_free(struct uc_dedup *d);
/* Counts @key; true the first time (print it), false for repeats. @what
 * (the SUMMARY text) is remembered from the first time. */
bool dedup_first(struct uc_dedup *d, uint64_t key, const char *what);
/* How many times @key was counted (0 if never). */
uint64_t dedup_count(const struct uc_dedup *d, uint64_t key);
/* Lines "  N more x WHAT" (N: the times after the first) for keys seen
 * more than once; returns how many. */
size_t dedup_print_repeats(const struct uc_dedup *d, FILE *out);

#endif
