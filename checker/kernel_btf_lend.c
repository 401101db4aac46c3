// SPDX-License-Identifier: GPL-2.0
/*
 * One parse of the kernel's BTF per start-up, not one per libbpf load.
 *
 * Every bpf_object__load() of a tracing program reads and parses the
 * kernel's BTF (attach points, kfunc externs): 5.5 MiB read from sysfs,
 * copied, and indexed, 4-7 ms of CPU each here, most of it faulting in
 * fresh pages. A cold start did it three times, once in the kernel probe
 * and once in each half of the programs (cold_load.c). libbpf 1.6 takes
 * a parsed BTF from its caller; Debian 12's 1.1 does not, but it gets the
 * kernel's BTF through its own exported btf__load_vmlinux_btf(), called
 * through the PLT, so the definition below is the one it calls.
 *
 * While a BTF is lent, the caller gets an empty split BTF on top of it:
 * the same types under the same ids, for the cost of a small allocation,
 * and libbpf's btf__free() of it frees only the split's own (empty)
 * part. Parsed BTF is only read, by libbpf too, so both halves' loads
 * may read the lent one at once. Otherwise, and if the split cannot be
 * made, libbpf's own definition parses the kernel's BTF as always.
 */
#define _GNU_SOURCE	/* RTLD_NEXT */
#include "kernel_btf_lend.h"

#include <bpf/btf.h>
#include <dlfcn.h>
#include <stddef.h>

static const struct btf *lent;

void kernel_btf_lend(const struct btf *btf)
{
	__atomic_store_n(&lent, btf, __ATOMIC_RELEASE);
}

struct btf *btf__load_vmlinux_btf(void)
{
	static struct btf *(*libbpf_own)(void);
	const struct btf *base = __atomic_load_n(&lent, __ATOMIC_ACQUIRE);
	struct btf *split = base ? btf__new_empty_split((struct btf *)base) : NULL;

	if (split)
		return split;
	if (!__atomic_load_n(&libbpf_own, __ATOMIC_ACQUIRE))
		__atomic_store_n(&libbpf_own, dlsym(RTLD_NEXT, "btf__load_vmlinux_btf"),
				 __ATOMIC_RELEASE);
	return libbpf_own ? libbpf_own() : NULL;
}
