// SPDX-License-Identifier: GPL-2.0
/* -e/--filter (filter.h). */
#define _GNU_SOURCE
#include "filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opcode_names.h"
#include "xalloc.h"

int uc_filter_parse(const char *expr, struct uc_filter *f, const char *option)
{
	char *copy, *save = NULL, *tok;

	memset(f, 0, sizeof(*f));
	if (!strcmp(expr, "punt")) {
		f->what = UC_FILTER_PUNT;
		return 0;
	}
	if (!strcmp(expr, "error")) {
		f->what = UC_FILTER_ERROR;
		return 0;
	}
	if (strncmp(expr, "op=", 3) || !expr[3]) {
		fprintf(stderr, "uringcheck: %s %s: not op=NAME[,NAME...], punt or error\n",
			option, expr);
		return -1;
	}
	f->what = UC_FILTER_OPS;
	copy = xstrdup(expr + 3);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int op = uc_opcode_lookup(tok);

		if (op < 0) {
			fprintf(stderr, "uringcheck: %s %s: unknown opcode '%s' "
				"(uringcheck --list-ops lists them)\n", option, expr, tok);
			free(copy);
			return -1;
		}
		f->ops[op / 64] |= 1ull << (op % 64);
	}
	free(copy);
	return 0;
}

bool uc_filter_shows(const struct uc_filter *f, unsigned op, uint64_t punted,
		     uint64_t errors)
{
	switch (f->what) {
	case UC_FILTER_NONE:
		return true;
	case UC_FILTER_OPS:
		return op < 256 && (f->ops[op / 64] >> (op % 64) & 1);
	case UC_FILTER_PUNT:
		return punted > 0;
	case UC_FILTER_ERROR:
		return errors > 0;
	}
	return true;
}
