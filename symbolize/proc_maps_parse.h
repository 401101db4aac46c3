/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The /proc/PID/maps parser of proc_maps.c, apart from the file it reads:
 * for proc_maps.c itself and for its fuzz harness
 * (testsuite/fuzz/fuzz_proc_maps.c). Nothing else includes this.
 */
#ifndef UC_PROC_MAPS_PARSE_H
#define UC_PROC_MAPS_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One line of /proc/PID/maps. */
struct raw_map {
	uint64_t start, end, offset, dev, inode;
	char perms[5];
	char *path;			/* "" if none */
	char range[40];			/* "start-end" as printed */
	bool deleted, keep;
};

/*
 * Parses the lines of @fp (a maps file), skipping those that are not
 * mappings, and marks the lines to keep: every mapping of a file that
 * has an executable mapping, and anonymous/special executable ones.
 * NULL with errno ESRCH if there is no mapping (a zombie shows an empty
 * maps file), ENOMEM if out of memory.
 */
struct raw_map *uc_maps_parse(FILE *fp, size_t *np);
/* The same over @len bytes of @text (a copy of a maps file). */
struct raw_map *uc_maps_parse_text(const char *text, size_t len, size_t *np);
void uc_maps_raw_free(struct raw_map *r, size_t n);

#endif
