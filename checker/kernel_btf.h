/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's BTF: read once, as cheaply as the kernel allows, and lent
 * to libbpf's loads (kernel_btf.c says how and why). */
#ifndef UC_KERNEL_BTF_H
#define UC_KERNEL_BTF_H

struct btf;

/* The running kernel's BTF, NULL with errno set. */
struct btf *kernel_btf_read(void);

/* From now on libbpf's loads read @btf instead of parsing the kernel's
 * BTF again; NULL: they read it themselves again. @btf must outlive
 * every load that starts while it is lent. One lender at a time: the
 * checker's, the profile's and the trace's loaders run one after another
 * (core_btf.c lends from filling its file until closing it). */
void kernel_btf_lend(const struct btf *btf);

#endif
