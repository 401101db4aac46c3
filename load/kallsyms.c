// SPDX-License-Identifier: GPL-2.0
#include "kallsyms.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

uint64_t kallsyms_addr(const char *name)
{
	char line[512], sym[256], type;
	uint64_t addr, found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		/* "ffffffff812299b0 t io_ring_exit_work" (a module's have
		 * "\t[module]" after: not wanted, and not matched) */
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, sym) != 3)
			continue;
		if ((type == 't' || type == 'T') && !strcmp(sym, name) &&
		    !strchr(line, '[')) {
			found = addr;
			break;
		}
	}
	fclose(f);
	return found;
}
