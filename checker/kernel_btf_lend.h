/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's BTF, parsed once, lent to libbpf's loads (kernel_btf_lend.c
 * says how and why). */
#ifndef UC_KERNEL_BTF_LEND_H
#define UC_KERNEL_BTF_LEND_H

struct btf;

/* From now on libbpf's loads read @btf instead of parsing the kernel's
 * BTF again; NULL: they parse it themselves again. @btf must outlive
 * every load that starts while it is lent. One lender at a time: the
 * checker's, the profile's and the trace's loaders run one after another
 * (core_btf.c lends from filling its file until closing it). */
void kernel_btf_lend(const struct btf *btf);

#endif
