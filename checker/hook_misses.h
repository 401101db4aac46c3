/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Runs of the checker's hooks the kernel skipped, per program: the note
 * at the end of a run names the programs (checker/check_mode.c), from the
 * counts the kernel keeps (session_hook_misses) at the start and the end.
 */
#ifndef UC_HOOK_MISSES_H
#define UC_HOOK_MISSES_H

#include <stddef.h>
#include <stdint.h>

#define UC_HOOK_MISSES_MAX 48

struct uc_hook_misses {
	size_t n;
	/* @name: not copied (a program's name, living as long as its object) */
	struct { const char *name; uint64_t runs; } v[UC_HOOK_MISSES_MAX];
};

/* Adds @runs for program @name to @m (NULL @m: nothing; past
 * UC_HOOK_MISSES_MAX programs, the others are left out). */
void hook_misses_add(struct uc_hook_misses *m, const char *name, uint64_t runs);
/* Writes "NAME N, NAME N" into @buf (at most @cap bytes, cut short if
 * longer): each program whose count in @end is above its count in
 * @base, by the difference, most first; "" if none. */
void hook_misses_text(const struct uc_hook_misses *base, const struct uc_hook_misses *end,
		      char *buf, size_t cap);

#endif
