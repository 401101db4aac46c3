// SPDX-License-Identifier: GPL-2.0
#include "version.h"

#include "kernel_features.h"
#include "../reports/report.h"

void print_version(FILE *out)
{
	struct uc_kernel k;
	char err[256];

	fprintf(out, "uringcheck %s\n", UC_VERSION);
	fprintf(out, "hazards:");
	uc_kinds_print(out);
	fprintf(out, "\n");
	if (kernel_probe(&k, err, sizeof(err)) && !k.btf) {
		fprintf(out, "%s\n", err);
		return;
	}
	kernel_print(&k, out);
}
