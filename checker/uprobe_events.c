// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "uprobe_events.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
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
