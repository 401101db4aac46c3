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
 *
 * Answered, not searched: libbpf finds each program's attach point and
 * each kfunc by walking all of the kernel's types (~126,000 on 6.18),
 * ~0.2 ms a name, ~3.6 ms per cold start, in both halves' threads before
 * they can load. The kernel probe walks them once anyway; the names a
 * load will look up are found in that walk (kernel_btf_names_of), and
 * libbpf's btf__find_by_name_kind(), called through the PLT too, is
 * answered from them for the lent BTF. Any other name, or any other BTF,
 * is searched by libbpf as always.
 *
 * Both replacements work by symbol interposition in the usual shared
 * link; the static binary (make STATIC=1) gets the same by the linker's
 * --wrap (REPLACES below).
 */
#define _GNU_SOURCE	/* RTLD_NEXT */
#include "kernel_btf.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SYSFS_VMLINUX	"/sys/kernel/btf/vmlinux"

static const struct btf *lent;

#define MAX_ANSWERS	48
static struct kernel_btf_name answers[MAX_ANSWERS];
static int nanswers;

void kernel_btf_lend(const struct btf *btf)
{
	if (!btf)
		nanswers = 0;	/* with the BTF they answer for */
	__atomic_store_n(&lent, btf, __ATOMIC_RELEASE);
}

void kernel_btf_answers(const struct kernel_btf_name *names, int n)
{
	nanswers = 0;
	for (int i = 0; i < n && i < MAX_ANSWERS; i++)
		answers[nanswers++] = names[i];
}

static int add_name(struct kernel_btf_name *names, int n, int max, const char *prefix,
		    const char *name, unsigned int kind)
{
	if (n >= max || snprintf(names[n].name, sizeof(names[n].name), "%s%s", prefix,
				 name) >= (int)sizeof(names[n].name))
		return n;
	names[n].kind = kind;
	names[n].id = -1;
	return n + 1;
}

int kernel_btf_names_of(const struct bpf_object *obj, struct kernel_btf_name *names, int max)
{
	const struct btf *btf = bpf_object__btf(obj);
	struct bpf_program *p;
	int n = 0;

	/* libbpf: "btf_trace_" + the section's name after "tp_btf/" */
	bpf_object__for_each_program(p, (struct bpf_object *)obj) {
		const char *s = bpf_program__section_name(p);

		if (!strncmp(s, "tp_btf/", 7))
			n = add_name(names, n, max, "btf_trace_", s + 7, BTF_KIND_TYPEDEF);
	}
	/* The kfuncs. Their extern FUNCs are global ones once libbpf has
	 * opened the object (the kernel takes no extern FUNC), so: the FUNCs
	 * named bpf_*, as kfuncs are (the object's own functions are not).
	 * A kfunc named otherwise is just looked up by libbpf. */
	for (int id = 1; btf && id < (int)btf__type_cnt(btf); id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name = btf__name_by_offset(btf, t->name_off);

		if (btf_is_func(t) && name && !strncmp(name, "bpf_", 4))
			n = add_name(names, n, max, "", name, BTF_KIND_FUNC);
	}
	return n;
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

#ifdef UC_STATIC
/* make STATIC=1: libbpf.a is in the binary, and a definition of ours
 * cannot hide one of its own. The link wraps both names (--wrap,
 * Makefile): libbpf's calls, from its other objects, come to
 * __wrap_NAME, defined below, and __real_NAME is libbpf's own. */
struct btf *__real_btf__load_vmlinux_btf(void);
__s32 __real_btf__find_by_name_kind(const struct btf *btf, const char *name, __u32 kind);
#define REPLACES(name) __wrap_##name
#define LIBBPF_OWN(cache, name) ((void)(cache), (void *)__real_##name)
#else
#define REPLACES(name) name
#define LIBBPF_OWN(cache, name) libbpf_own(cache, #name)

/* libbpf's own definition of @name, the one this file's hides (looked
 * up once into *@cache). */
static void *libbpf_own(void **cache, const char *name)
{
	void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

	if (!f) {
		f = dlsym(RTLD_NEXT, name);
		__atomic_store_n(cache, f, __ATOMIC_RELEASE);
	}
	return f;
}
#endif

static struct btf *libbpf_read(void)
{
	static void *cache;
	struct btf *(*own)(void) = LIBBPF_OWN(&cache, btf__load_vmlinux_btf);

	return own ? own() : NULL;
}

struct btf *kernel_btf_read(void)
{
	struct btf *btf = read_mapped();

	return btf ? btf : libbpf_read();
}

__s32 REPLACES(btf__find_by_name_kind)(const struct btf *btf, const char *name, __u32 kind)
{
	static void *cache;
	__s32 (*libbpf_find)(const struct btf *, const char *, __u32);
	const struct btf *base = __atomic_load_n(&lent, __ATOMIC_ACQUIRE);

	if (base && btf && name && (btf == base || btf__base_btf(btf) == base))
		for (int i = 0; i < nanswers; i++) {
			if (answers[i].kind != kind || strcmp(answers[i].name, name))
				continue;
			if (answers[i].id > 0)
				return (__s32)answers[i].id;
			errno = ENOENT;
			return -ENOENT;
		}
	libbpf_find = LIBBPF_OWN(&cache, btf__find_by_name_kind);
	if (!libbpf_find) {
		errno = ENOSYS;
		return -ENOSYS;
	}
	return libbpf_find(btf, name, kind);
}

struct btf *REPLACES(btf__load_vmlinux_btf)(void)
{
	const struct btf *base = __atomic_load_n(&lent, __ATOMIC_ACQUIRE);
	struct btf *split = base ? btf__new_empty_split((struct btf *)base) : NULL;

	return split ? split : kernel_btf_read();
}
