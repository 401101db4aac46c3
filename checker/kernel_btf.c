// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's BTF, read once per start-up and as cheaply as the kernel
 * allows.
 *
 * Mapped, not read: since 6.16 /sys/kernel/btf/vmlinux can be mapped, and
 * parsing it from the mapping spares the 5.5 MiB copy into fresh pages a
 * read() makes before the parser copies it once more (~7 -> ~3.3 ms here).
 * Older kernels refuse the mapping; then libbpf reads it as always.
 *
 * Lent, not parsed again: every bpf_object__load() of tracing programs
 * parses the kernel's BTF for the attach points and kfunc externs, so a
 * cold start did it three times, once in the kernel probe and once in
 * each half of the programs (cold_load.c). libbpf 1.6 takes a parsed BTF
 * from its caller; Debian 12's 1.1 does not, but it gets the kernel's BTF
 * through its own exported btf__load_vmlinux_btf(), called through the
 * PLT, so the definition below is the one it calls. While a BTF is lent
 * it returns an empty split BTF on top of it: the same types under the
 * same ids, for the cost of a small allocation, and libbpf's btf__free()
 * of it frees only the split's own (empty) part. Parsed BTF is only read,
 * by libbpf too, so both halves' loads may read the lent one at once.
 * Otherwise it reads the kernel's BTF as kernel_btf_read() does.
 */
#define _GNU_SOURCE	/* RTLD_NEXT */
#include "kernel_btf.h"

#include <bpf/btf.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SYSFS_VMLINUX	"/sys/kernel/btf/vmlinux"

static const struct btf *lent;

void kernel_btf_lend(const struct btf *btf)
{
	__atomic_store_n(&lent, btf, __ATOMIC_RELEASE);
}

/* Parsed from a mapping of sysfs's file; NULL if it cannot be mapped. */
static struct btf *read_mapped(void)
{
	int fd = open(SYSFS_VMLINUX, O_RDONLY | O_CLOEXEC);
	struct btf *btf = NULL;
	struct stat st;
	void *raw;

	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && st.st_size > 0) {
		raw = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (raw != MAP_FAILED) {
			btf = btf__new(raw, st.st_size);	/* copies it */
			munmap(raw, st.st_size);
		}
	}
	close(fd);
	return btf;
}

/* libbpf's own definition, the one this file's hides. */
static struct btf *libbpf_read(void)
{
	static struct btf *(*own)(void);

	if (!__atomic_load_n(&own, __ATOMIC_ACQUIRE))
		__atomic_store_n(&own, dlsym(RTLD_NEXT, "btf__load_vmlinux_btf"),
				 __ATOMIC_RELEASE);
	return own ? own() : NULL;
}

struct btf *kernel_btf_read(void)
{
	struct btf *btf = read_mapped();

	return btf ? btf : libbpf_read();
}

struct btf *btf__load_vmlinux_btf(void)
{
	const struct btf *base = __atomic_load_n(&lent, __ATOMIC_ACQUIRE);
	struct btf *split = base ? btf__new_empty_split((struct btf *)base) : NULL;

	return split ? split : kernel_btf_read();
}
