/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel types a BPF object's CO-RE relocations can match, as a BTF
 * of their own for libbpf's btf_custom_path (core_btf.c says why). */
#ifndef UC_CORE_BTF_H
#define UC_CORE_BTF_H

#include <stdint.h>

struct btf;

/* The types of @kern named like a type of @local, with all they embed;
 * NULL with errno set on failure. */
struct btf *core_btf_build(const struct btf *kern, const struct btf *local);

/* The file libbpf is told to read it from (btf_custom_path): a memory
 * file, named before the object is opened and filled before it loads. */
struct core_btf_file {
	int fd;
	char path[32];
	struct btf *kernel;	/* lent to libbpf until closed */
};

/* 0, or -1 with errno set. */
int core_btf_file_open(struct core_btf_file *f);
/* Fills @f with the stand-in for @local, or with @kern itself if that
 * cannot be built (slower, the same relocations). @kern, the run's parse
 * of the kernel's BTF (load.h), is lent to libbpf's loads for their
 * attach points and kfuncs (kernel_btf.h) until core_btf_file_close(),
 * which does not free it. */
int core_btf_file_fill(struct core_btf_file *f, struct btf *kern, const struct btf *local);
void core_btf_file_close(struct core_btf_file *f);

#endif
