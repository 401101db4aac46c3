/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's BTF: read once, as cheaply as the kernel allows, and lent
 * to libbpf's loads (kernel_btf.c says how and why). */
#ifndef UC_KERNEL_BTF_H
#define UC_KERNEL_BTF_H

struct btf;

/* The running kernel's BTF, NULL with errno set. */
struct btf *kernel_btf_read(void);

/* A name a libbpf load looks up in the kernel's BTF, one full walk over
 * its types each (an attach point's btf_trace_ typedef, a kfunc), and
 * the answer: found instead in the kernel probe's one walk. */
struct kernel_btf_name {
	char name[64];
	unsigned int kind;		/* BTF_KIND_TYPEDEF or BTF_KIND_FUNC */
	long long id;			/* the type's id; -1: not in this kernel */
};

struct bpf_object;
/* The names @obj's load looks up (its tp_btf programs' attach points,
 * its kfuncs) into @names, at most @max; their number. */
int kernel_btf_names_of(const struct bpf_object *obj, struct kernel_btf_name *names, int max);
/* libbpf's lookups of these names in the BTF lent next are answered from
 * @names (copied) until it is no longer lent. */
void kernel_btf_answers(const struct kernel_btf_name *names, int n);

/* From now on libbpf's loads read @btf instead of parsing the kernel's
 * BTF again; NULL: they read it themselves again. @btf must outlive
 * every load that starts while it is lent. One lender at a time: the
 * checker's, the profile's and the trace's loaders run one after another
 * (core_btf.c lends from filling its file until closing it). */
void kernel_btf_lend(const struct btf *btf);

#endif
