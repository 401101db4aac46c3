// SPDX-License-Identifier: GPL-2.0
#include "log_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

FILE *open_log(const char *pattern, pid_t pid)
{
	char path[4096];
	size_t o = 0;
	FILE *f;

	for (const char *p = pattern; *p && o < sizeof(path) - 24; p++) {
		if (p[0] == '%' && p[1] == 'p') {
			o += snprintf(path + o, sizeof(path) - o, "%d", pid);
			p++;
		} else {
			path[o++] = *p;
		}
	}
	path[o] = 0;
	f = fopen(path, "we");
	if (!f)
		fprintf(stderr, "uringcheck: cannot open log file '%s': %s\n", path,
			strerror(errno));
	return f;
}
