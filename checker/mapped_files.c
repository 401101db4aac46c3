// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "mapped_files.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../symbolize/proc_maps_parse.h"

int mapped_files_each(pid_t pid, mapped_file_fn fn, void *arg)
{
	char maps[64];
	struct raw_map *r;
	size_t n = 0;
	int stopped = 0;
	FILE *f;

	if (pid)
		snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	else
		snprintf(maps, sizeof(maps), "/proc/self/maps");
	f = fopen(maps, "re");
	if (!f)
		return -1;
	r = uc_maps_parse(f, &n);
	fclose(f);
	if (!r)
		return -1;	/* no mapping: gone, a zombie, or out of memory */
	for (size_t i = 0; i < n && !stopped; i++) {
		const char *path = r[i].path;

		/* a file's mappings, not [heap], [stack] or anonymous ones */
		if (path[0] != '/')
			continue;
		/* the same file's other segments follow its first */
		if (i && !strcmp(path, r[i - 1].path))
			continue;
		stopped = fn(path, strrchr(path, '/') + 1, arg);
	}
	uc_maps_raw_free(r, n);
	return stopped;
}

bool mapped_file_path(pid_t pid, const char *path, char *out, size_t len)
{
	int n = pid ? snprintf(out, len, "/proc/%d/root%s", (int)pid, path)
		    : snprintf(out, len, "%s", path);

	return n >= 0 && (size_t)n < len;
}
