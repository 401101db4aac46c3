// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "uprobe_events.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <linux/perf_event.h>
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

int uprobe_pmu(int *type, int *retprobe_bit)
{
	*type = read_int_file("/sys/bus/event_source/devices/uprobe/type", NULL);
	*retprobe_bit = read_int_file("/sys/bus/event_source/devices/uprobe/format/retprobe",
				      "config:");
	return *type < 0 || *retprobe_bit < 0 ? -1 : 0;
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

uint64_t uprobe_file_func_offset(const char *path, const char *name)
{
	uint64_t off = 0;
	Elf *elf;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf) {
		off = uprobe_func_offset(elf, name);
		elf_end(elf);
	}
	close(fd);
	return off;
}

int uprobe_open(int type, int retprobe_bit, int prog_fd, const char *path, uint64_t off,
		bool ret, pid_t pid, uint64_t cookie, int fds[2])
{
	LIBBPF_OPTS(bpf_link_create_opts, lo, .perf_event.bpf_cookie = cookie);
	struct perf_event_attr attr = { 0 };
	int pfd, lfd;

	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = ret ? 1ULL << retprobe_bit : 0;
	attr.config1 = (uint64_t)(uintptr_t)path;
	attr.config2 = off;
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

/* In a process of its own, holding only @fds (sorted): closes them. */
static void __attribute__((noreturn)) closer(int *fds, int n)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC), next = 3;

	prctl(PR_SET_NAME, "uringcheck-close");

	/* No pipe of the caller's is kept open by it (a reader waiting for
	 * uringcheck's output to end must not wait for this). */
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	for (int i = 0; i < n; i++) {
		if (fds[i] < next)
			continue;
		if (fds[i] > next)
			syscall(SYS_close_range, next, fds[i] - 1, 0);
		next = fds[i] + 1;
	}
	syscall(SYS_close_range, next, ~0U, 0);
	close_all(fds, n);
	_exit(0);
}

/*
 * Each uprobe's last close unregisters it and waits for grace periods
 * under a kernel-wide mutex: 100-300 ms a probe on 6.18, one after the
 * other, so closing free-inflight's probes added a third of a second to
 * every run's exit. The last references go to a process of their own
 * (double-forked: reparented, nothing to reap) that closes them and
 * exits, and uringcheck closes its copies at once; the probes are gone
 * within that third of a second of its exit, as the kernel finishes.
 * Without a process (fork failed), the closes happen here.
 */
void uprobe_events_close(int *fds, int n)
{
	int *sorted;
	pid_t pid;

	if (n <= 0)
		return;
	sorted = malloc(n * sizeof(*sorted));
	if (sorted) {
		memcpy(sorted, fds, n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), cmp_int);
	}
	pid = sorted ? fork() : -1;
	if (pid == 0) {
		if (fork() == 0)
			closer(sorted, n);
		_exit(0);
	}
	if (pid > 0) {
		/* the grandchild holds them now: these closes are not the last */
		waitpid(pid, NULL, 0);
		for (int i = 0; i < n; i++)
			if (fds[i] >= 0)
				close(fds[i]);
	} else {
		close_all(fds, n);
	}
	free(sorted);
	for (int i = 0; i < n; i++)
		fds[i] = -1;
}
