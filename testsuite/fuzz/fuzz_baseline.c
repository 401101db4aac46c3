// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the --diff baseline reader (profile/diff.c). The
 * input is a baseline file's bytes, in a buffer of exactly that size (no
 * NUL after it). A file that reads is compared with itself and with an
 * empty run, as text (to /dev/null, with and without a filter) and as
 * JSON, then freed.
 *
 *   make fuzz && .output-fuzz/fuzz_baseline testsuite/fuzz/corpus/baseline
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	struct pf_summary s, empty = { 0 };
	struct uc_filter f = { .what = UC_FILTER_PUNT };
	char err[256];
	char *copy = malloc(size ? size : 1);

	err[0] = 0;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	memcpy(copy, data, size);
	if (!pf_baseline_parse(copy, size, &s, err, sizeof(err))) {
		pf_diff_text(devnull, &s, &s, "base", NULL);
		pf_diff_text(devnull, &s, &empty, "base", &f);
		pf_diff_text(devnull, &empty, &s, "base", NULL);
		json_object_put(pf_diff_json(&s, &s, "base"));
		json_object_put(pf_diff_json(&empty, &s, "base"));
		pf_summary_free(&s);
	} else if (!err[0]) {
		abort();	/* refused without a reason */
	}
	free(copy);
	return 0;
}
