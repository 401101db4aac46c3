// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "uprobe_events.h"
#include "../lib/regular_file.h"

#include "load.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int read_int_file(const char *path, const char *skip)
{
	char buf[64];
	FILE *f = fopen(path, "re");
	int v = -1;

	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f)) {
		const char *p = buf;

		if (skip && !strncmp(p, skip, strlen(skip)))
			p += strlen(skip);
		v = atoi(p);
	}
	fclose(f);
	return v;
}

static uint64_t symbol_vaddr(Elf *elf, uint32_t type, const char *name)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(data, i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value)
				continue;
			n = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name))
				return sym.st_value;
		}
	}
	return 0;
}

uint64_t uprobe_func_offset(Elf *elf, const char *name)
{
	uint64_t vaddr = symbol_vaddr(elf, SHT_DYNSYM, name);
	size_t nph;

	/* a static library's functions are in .symtab alone */
	if (!vaddr)
		vaddr = symbol_vaddr(elf, SHT_SYMTAB, name);
	if (!vaddr || elf_getphdrnum(elf, &nph))
		return 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X) && vaddr >= ph.p_vaddr &&
		    vaddr < ph.p_vaddr + ph.p_filesz)
			return vaddr - ph.p_vaddr + ph.p_offset;
	}
	return 0;
}

void uprobe_file_func_offsets(const char *path, const char *const *names, int n,
			      uint64_t *offs)
{
	Elf *elf;
	int fd;

	memset(offs, 0, (size_t)n * sizeof(*offs));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return;
	fd = open_regular(path);
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	for (int i = 0; elf && i < n; i++)
		offs[i] = uprobe_func_offset(elf, names[i]);
	elf_end(elf);
	close(fd);
}

uint64_t uprobe_file_func_offset(const char *path, const char *name)
{
	uint64_t off;

	uprobe_file_func_offsets(path, &name, 1, &off);
	return off;
}

/* A uprobe perf event of the PMU's @type at @path + @off for @pid, and
 * @prog_fd attached to it (a BPF link, or the ioctl before v5.15). */
static int perf_uprobe_open(const struct uprobe_way *w, int prog_fd, const char *path,
			    const struct uprobe_site *site, pid_t pid, int fds[2])
{
	LIBBPF_OPTS(bpf_link_create_opts, lo, .perf_event.bpf_cookie = site->cookie);
	struct perf_event_attr attr = { 0 };
	int pfd, lfd;

	attr.size = sizeof(attr);
	attr.type = w->type;
	attr.config = site->ret ? 1ULL << w->retprobe_bit : 0;
	attr.config1 = (uint64_t)(uintptr_t)path;
	attr.config2 = site->off;
	pfd = syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return -errno;
	lfd = bpf_link_create(prog_fd, pfd, BPF_PERF_EVENT, &lo);
	if (lfd < 0 && ioctl(pfd, PERF_EVENT_IOC_SET_BPF, prog_fd)) {
		int err = -errno;

		close(pfd);
		return err;
	}
	ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0);
	fds[0] = pfd;
	fds[1] = lfd;
	return 0;
}

/*
 * BPF_LINK_CREATE's uprobe_multi part (union bpf_attr, v6.6), which
 * Debian 12's uapi header lacks: the same layout, the same field order.
 */
struct uprobe_multi_attr {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint64_t path, offsets, ref_ctr_offsets, cookies;
	uint32_t cnt, multi_flags, pid;
};
_Static_assert(offsetof(struct uprobe_multi_attr, path) == 16 &&
	       offsetof(struct uprobe_multi_attr, pid) == 56, "bpf_attr's uprobe_multi layout");

/* One uprobe_multi link: @prog_fd at the @n offsets of @path (their
 * returns if @ret), for @pid's address space. The link's descriptor, or
 * -errno. */
static int multi_link(int prog_fd, const char *path, const uint64_t *offs,
		      const uint64_t *cookies, uint32_t n, bool ret, pid_t pid)
{
	struct uprobe_multi_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_fd = prog_fd;
	a.attach_type = UC_BPF_TRACE_UPROBE_MULTI;
	a.path = (uint64_t)(uintptr_t)path;
	a.offsets = (uint64_t)(uintptr_t)offs;
	a.cookies = (uint64_t)(uintptr_t)cookies;
	a.cnt = n;
	a.multi_flags = ret ? UC_BPF_F_UPROBE_MULTI_RETURN : 0;
	a.pid = pid;
	fd = syscall(SYS_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : fd;
}

int uprobe_way_init(struct uprobe_way *w, bool multi)
{
	memset(w, 0, sizeof(*w));
	w->multi = multi;
	if (multi)
		return 0;
	w->type = read_int_file("/sys/bus/event_source/devices/uprobe/type", NULL);
	w->retprobe_bit = read_int_file("/sys/bus/event_source/devices/uprobe/format/retprobe",
					"config:");
	return w->type < 0 || w->retprobe_bit < 0 ? -1 : 0;
}

int uprobe_attach(const struct uprobe_way *w, int prog_fd, const char *path,
		  const struct uprobe_site *sites, int n, pid_t pid, int *fds, int *nfds,
		  int cap)
{
	if (n > UPROBE_SITES_MAX)
		return -E2BIG;	/* a caller's table outgrew the links' arrays */
	if (!w->multi) {
		for (int i = 0; i < n; i++) {
			int two[2] = { -1, -1 }, err;

			if (*nfds + 2 > cap)
				return -ENOSPC;
			err = perf_uprobe_open(w, prog_fd, path, &sites[i], pid, two);
			if (err)
				return err;
			fds[(*nfds)++] = two[0];
			if (two[1] >= 0)
				fds[(*nfds)++] = two[1];
		}
		return 0;
	}
	/* One link for the entries, one for the returns. */
	for (int ret = 0; ret < 2; ret++) {
		uint64_t offs[UPROBE_SITES_MAX], cookies[UPROBE_SITES_MAX];
		uint32_t k = 0;
		int fd;

		for (int i = 0; i < n; i++)
			if (sites[i].ret == ret) {
				offs[k] = sites[i].off;
				cookies[k++] = sites[i].cookie;
			}
		if (!k)
			continue;
		if (*nfds + 1 > cap)
			return -ENOSPC;
		fd = multi_link(prog_fd, path, offs, cookies, k, ret, pid);
		if (fd < 0)
			return fd;
		fds[(*nfds)++] = fd;
	}
	return 0;
}

static void close_all(const int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * In a process of its own, holding only @keep (sorted: the probes' fds
 * and @go, a pipe's read end): once uringcheck has closed its copies (@go
 * reads end of file), closes them: these closes are the last.
 */
static void __attribute__((noreturn)) closer(const int *keep, int n, int go)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC), next = 3;
	char c;

	prctl(PR_SET_NAME, "uringcheck-close");

	/* No pipe of the caller's is kept open by it (a reader waiting for
	 * uringcheck's output to end must not wait for this). */
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	for (int i = 0; i < n; i++) {
		if (keep[i] < next)
			continue;
		if (keep[i] > next)
			syscall(SYS_close_range, next, keep[i] - 1, 0);
		next = keep[i] + 1;
	}
	syscall(SYS_close_range, next, ~0U, 0);
	while (read(go, &c, 1) < 0 && errno == EINTR)
		;
	for (int i = 0; i < n; i++)
		if (keep[i] != go)
			close(keep[i]);
	_exit(0);
}

/*
 * Each uprobe's last close unregisters it and waits for grace periods
 * under a kernel-wide mutex: 100-300 ms a probe on 6.18 (50-90 ms for
 * free-inflight's two multi-probe links), one after the other, so closing
 * them added that to every run's exit. The last references go to a
 * process of their own (double-forked: reparented, nothing to reap) that
 * waits until uringcheck has closed its copies, then closes them and
 * exits; the probes are gone shortly after uringcheck's exit, as the
 * kernel finishes. (It must wait: a closer that closed first, as it did
 * before, left the last close, and the wait, to uringcheck.) Without a
 * process (fork or pipe failed), the closes happen here.
 */
void uprobe_events_close(int *fds, int n)
{
	int *keep, go[2] = { -1, -1 };
	pid_t pid = -1;

	if (n <= 0)
		return;
	keep = malloc((n + 1) * sizeof(*keep));
	if (keep && !pipe2(go, O_CLOEXEC)) {
		memcpy(keep, fds, n * sizeof(*keep));
		keep[n] = go[0];
		qsort(keep, n + 1, sizeof(*keep), cmp_int);
		pid = fork();
	}
	if (pid == 0) {
		if (fork() == 0)
			closer(keep, n + 1, go[0]);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);	/* the grandchild holds them now */
	close_all(fds, n);
	/* Not the last closes where it holds them: it may go on now. */
	if (go[1] >= 0) {
		close(go[1]);
		close(go[0]);
	}
	free(keep);
	for (int i = 0; i < n; i++)
		fds[i] = -1;
}
