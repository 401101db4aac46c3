// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the /proc/PID/maps parser of symbolize/proc_maps.c
 * (uc_maps_parse_text, symbolize/proc_maps_parse.h). The input is a maps
 * file's bytes. Every line parsed must come back with its strings
 * terminated, its range as printed and the keep mark as the parser's
 * rule says (an executable mapping is always kept).
 *
 *   make fuzz && .output-fuzz/fuzz_proc_maps testsuite/fuzz/corpus/proc_maps
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proc_maps_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct raw_map *r;
	size_t n = 0;

	errno = 0;
	r = uc_maps_parse_text((const char *)data, size, &n);
	if (!r) {
		if (errno != ESRCH && errno != ENOMEM)
			abort();
		return 0;
	}
	if (!n)
		abort();
	for (size_t i = 0; i < n; i++) {
		if (!memchr(r[i].perms, 0, sizeof(r[i].perms)) ||
		    !memchr(r[i].range, 0, sizeof(r[i].range)) || !r[i].path)
			abort();
		(void)strlen(r[i].path);
		if (r[i].perms[2] == 'x' && !r[i].keep)
			abort();
	}
	uc_maps_raw_free(r, n);
	return 0;
}
