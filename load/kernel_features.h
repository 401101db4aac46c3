/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel offers, read from its BTF before anything is
 * loaded, so a missing hook is a clear one-line error rather than a
 * verifier log. What is looked for, and what each answer means, is one
 * table (features.def).
 */
#ifndef UC_KERNEL_FEATURES_H
#define UC_KERNEL_FEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What the probe found: a field per line of features.def. */
struct uc_kernel {
	char release[65];
	bool btf;			/* /sys/kernel/btf/vmlinux */
#define KFEAT(field, ...) bool field;
#define KVALUE(field, type, ...) type field;
#include "features.def"
#undef KFEAT
#undef KVALUE
	unsigned hz;			/* CONFIG_HZ, 0 if no config found */
};

/* Fills @k. Returns 0, or -1 with a one-line reason in *@err (malloc'd,
 * the caller frees it) when the kernel lacks something uringcheck
 * cannot work without. */
int kernel_probe(struct uc_kernel *k, char **err);
/* The same from @parsed, the kernel's BTF read already (taken over), or
 * read here if NULL, handing it over in *@keep (the caller frees it)
 * when the probe got that far, NULL otherwise; and @extra's ids found
 * in the same walk over the kernel's types (kernel_btf.h). */
struct btf;
struct kernel_btf_name;
int kernel_probe_from(struct uc_kernel *k, struct btf *parsed, struct btf **keep,
		      struct kernel_btf_name *extra, int nextra, char **err);
/* NULL if the kernel has what the programs need, else one line naming
 * every missing piece (malloc'd). */
char *kernel_probe_verdict(const struct uc_kernel *k);
/* --version's kernel lines. */
void kernel_print(const struct uc_kernel *k, FILE *out);
/* Sync loads (write, send) are judged: the wait hooks take the request. */
bool kernel_judges_loads(const struct uc_kernel *k);
/* One line: what a run on this kernel can judge. */
const char *kernel_tier(const struct uc_kernel *k);

#endif
