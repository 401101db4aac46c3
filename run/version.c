// SPDX-License-Identifier: GPL-2.0
/*
 * --version: printed by the command (main.c), which may know the kernel
 * probe (load/) and the kinds (reports/); lib/ knows neither.
 */
#include "version.h"

#include <stdlib.h>

#include "kernel_features.h"
#include "../reports/report.h"
#include "../static/static_build.h"

void print_version(FILE *out)
{
	struct uc_kernel k;
	char *err;

	fprintf(out, "uringcheck %s\n", UC_VERSION);
#ifdef UC_STATIC
	fprintf(out, "%s\n", UC_STATIC_LEAVES_OUT);
#endif
	fprintf(out, "hazards:");
	uc_kinds_print(out);
	fprintf(out, "\n");
	if (kernel_probe(&k, &err) && !k.btf) {
		fprintf(out, "%s\n", err ? err : "cannot probe the kernel");
		free(err);
		return;
	}
	free(err);
	kernel_print(&k, out);
}
