// SPDX-License-Identifier: GPL-2.0
/*
 * The skipped hook runs named per program (checker/hook_misses.c): the
 * difference between the counts at a run's start and end, most first,
 * programs without new skips left out, a full table and a short buffer
 * handled.
 */
#include <stdio.h>
#include <string.h>

#include "../../checker/hook_misses.h"

static int passed, failed;

static void expect(const char *what, const char *got, const char *want)
{
	if (!strcmp(got, want)) {
		passed++;
		printf("PASS  %s\n", what);
	} else {
		failed++;
		printf("FAIL  %s: got \"%s\", want \"%s\"\n", what, got, want);
	}
}

int main(void)
{
	struct uc_hook_misses base = { 0 }, end = { 0 }, none = { 0 };
	char buf[256], small[12];

	hook_misses_add(&base, "uc_sys_exit", 5);
	hook_misses_add(&base, "uc_reap_sampler", 2);
	hook_misses_add(&end, "uc_sys_exit", 5);		/* none new */
	hook_misses_add(&end, "uc_reap_sampler", 3);	/* 1 new */
	hook_misses_add(&end, "uc_heap_release_multi", 9);	/* 9 new */
	hook_misses_add(&end, "uc_complete", 4);		/* 4 new, added twice */
	hook_misses_add(&end, "uc_complete", 0);
	hook_misses_add(NULL, "uc_complete", 1);		/* no table: nothing */
	hook_misses_text(&base, &end, buf, sizeof(buf));
	expect("the differences, most first, the unchanged left out", buf,
	       "uc_heap_release_multi 9, uc_complete 4, uc_reap_sampler 1");

	hook_misses_text(&end, &end, buf, sizeof(buf));
	expect("nothing new: empty", buf, "");
	hook_misses_text(&none, &none, buf, sizeof(buf));
	expect("no programs: empty", buf, "");

	hook_misses_text(&base, &end, small, sizeof(small));
	expect("a short buffer: cut, terminated", small, "uc_heap_rel");

	/* Past UC_HOOK_MISSES_MAX programs, the others are left out. */
	struct uc_hook_misses full = { 0 };
	static char names[UC_HOOK_MISSES_MAX + 2][16];

	for (int i = 0; i < UC_HOOK_MISSES_MAX + 2; i++) {
		snprintf(names[i], sizeof(names[i]), "p%d", i);
		hook_misses_add(&full, names[i], 1);
	}
	hook_misses_add(&full, "p0", 100);
	snprintf(buf, sizeof(buf), "%zu", full.n);
	expect("a full table keeps its size", buf, "48");
	hook_misses_text(&none, &full, buf, sizeof(buf));
	buf[strcspn(buf, ",")] = 0;
	expect("a full table still counts what it holds", buf, "p0 101");

	printf("\n%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
