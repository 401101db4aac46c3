// SPDX-License-Identifier: GPL-2.0
/* Which words and registers decide a capture's frames: unwind_deciders.h. */
#include "unwind_deciders.h"

#include <stdlib.h>
#include <string.h>

/* Reads an unwind may make: 32 frames of a few words each, with room. */
#define READS_MAX	512

/* Changes that turn an address into a non-canonical one, so a changed
 * return address or frame base cannot land on another valid frame. */
#define FLIP_ONE	0x5a5a5a5a5a5a5a5aULL
#define FLIP_ALL	0xa5a5a5a5a5a5a5a5ULL

struct unwound {
	uint64_t pcs[UC_MAX_FRAMES];
	int n;
};

static void unwind(struct uc_maps *m, const struct uc_user_regs *r, const unsigned char *st,
		   size_t len, struct unwound *u)
{
	u->n = uc_unwind(m, r, st, len, u->pcs, UC_MAX_FRAMES);
}

static bool same(const struct unwound *a, const struct unwound *b)
{
	return a->n == b->n && !memcmp(a->pcs, b->pcs, (size_t)a->n * sizeof(a->pcs[0]));
}

static int cmp_u16(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

static void flip(unsigned char *st, uint16_t off, uint64_t by)
{
	uint64_t w;

	memcpy(&w, st + off, 8);
	w ^= by;
	memcpy(st + off, &w, 8);
}

bool uc_unwind_deciders(struct uc_maps *m, const struct uc_user_regs *regs,
			const void *stack, size_t len, struct uc_deciders *out,
			struct uc_unwind_info *info_out)
{
	uint16_t reads[READS_MAX];
	struct uc_unwind_info info, *ip = info_out ? info_out : &info;
	struct unwound base, u;
	struct uc_user_regs r = *regs;
	uint64_t *reg = &r.ip;		/* uc_user_regs is eight u64 in a row */
	unsigned char *st = NULL;
	bool ok = false, *decides = NULL;
	size_t nreads, nw = 0;

	memset(out, 0, sizeof(*out));
	base.n = uc_unwind_reads(m, regs, stack, len, base.pcs, UC_MAX_FRAMES, ip, reads,
				 READS_MAX, &nreads);
	if (!m || !stack || len < 8 || len > UC_STACK_COPY_MAX)
		return false;
	/* Only a chain that ended where the stack does is all in the copy. */
	if (base.n < 1 || !ip->outermost || ip->ran_out || nreads > READS_MAX)
		return false;
	qsort(reads, nreads, sizeof(reads[0]), cmp_u16);
	for (size_t i = 0; i < nreads; i++) {
		if (reads[i] % 8)
			return false;
		if (!nw || reads[nw - 1] != reads[i])
			reads[nw++] = reads[i];
	}
	st = malloc(len);
	decides = calloc(len / 8 + 1, sizeof(*decides));
	if (!st || !decides)
		goto out;
	memcpy(st, stack, len);
	for (size_t i = 0; i < nw; i++) {
		flip(st, reads[i], FLIP_ONE);
		unwind(m, &r, st, len, &u);
		flip(st, reads[i], FLIP_ONE);
		if (same(&u, &base))
			continue;
		if (out->nwords == UC_DECIDER_WORDS)
			goto out;
		decides[reads[i] / 8] = true;
		out->off[out->nwords++] = reads[i];
		out->span = reads[i] + 8u;
	}
	/* ip and sp are the site itself; the callee-saved ones follow. */
	for (int i = 2; i < 8; i++) {
		reg[i] ^= FLIP_ONE;
		unwind(m, &r, st, len, &u);
		reg[i] ^= FLIP_ONE;
		if (!same(&u, &base))
			out->regs |= (uint8_t)(1u << i);
	}
	/* Everything else at once, read or not: the frames stay. */
	for (int i = 2; i < 8; i++)
		if (!(out->regs & (1u << i)))
			reg[i] ^= FLIP_ALL;
	for (size_t off = 0; off + 8 <= len; off += 8)
		if (!decides[off / 8])
			flip(st, (uint16_t)off, FLIP_ALL);
	unwind(m, &r, st, len, &u);
	ok = same(&u, &base) && (out->nwords || out->regs);
out:
	free(st);
	free(decides);
	if (!ok)
		memset(out, 0, sizeof(*out));
	return ok;
}
