// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "liburing_files.h"
#include "../lib/regular_file.h"
#include "mapped_files.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct liburing_find {
	pid_t pid;
	char *path;
	size_t len;
	bool fits;
};

static bool liburing_take(const char *path, const char *base, void *arg)
{
	struct liburing_find *f = arg;

	if (strncmp(base, "liburing.so", 11) && strncmp(base, "liburing-ffi.so", 15))
		return false;
	f->fits = mapped_file_path(f->pid, path, f->path, f->len);
	return true;
}

int liburing_mapped(uint32_t pid, char *path, size_t len)
{
	struct liburing_find f = { .pid = (pid_t)pid, .path = path, .len = len };
	int found = mapped_files_each((pid_t)pid, liburing_take, &f);

	/* mapped, but not to be opened from here: not "not linked" */
	return found == 1 && !f.fits ? -ENAMETOOLONG : found;
}

static const char *const lib_dirs[] = {
	"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/local/lib",
	"/usr/lib64", "/usr/lib",
};

bool liburing_system(char *path, size_t len)
{
	char name[PATH_MAX], real[PATH_MAX];

	for (size_t i = 0; i < sizeof(lib_dirs) / sizeof(lib_dirs[0]); i++) {
		snprintf(name, sizeof(name), "%s/liburing.so.2", lib_dirs[i]);
		if (access(name, R_OK))
			continue;
		snprintf(path, len, "%s", realpath(name, real) ? real : name);
		return true;
	}
	return false;
}

/* Whether the dynamic section @scn of @elf needs liburing.so. */
static bool needs_liburing(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);

	for (size_t i = 0; data && sh->sh_entsize && i < sh->sh_size / sh->sh_entsize; i++) {
		GElf_Dyn dyn;
		const char *name;

		if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag != DT_NEEDED)
			continue;
		name = elf_strptr(elf, sh->sh_link, dyn.d_un.d_val);
		if (name && !strncmp(name, "liburing.so", 11))
			return true;
	}
	return false;
}

bool liburing_needed(const char *path)
{
	bool needed = false;
	Elf_Scn *scn = NULL;
	Elf *elf;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return false;
	fd = open_regular(path);
	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (!needed && elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNAMIC)
			needed = needs_liburing(elf, scn, &sh);
	}
	elf_end(elf);
	close(fd);
	return needed;
}

int liburing_attach_file(const struct uprobe_way *w, int prog_fd, const char *path,
			 const char *const *names, int nnames, pid_t pid,
			 int *fds, int *nfds, int cap)
{
	struct uprobe_site sites[UPROBE_SITES_MAX];
	uint64_t offs[UPROBE_SITES_MAX];
	int n = 0, err;

	if (nnames > UPROBE_SITES_MAX)
		nnames = UPROBE_SITES_MAX;
	uprobe_file_func_offsets(path, names, nnames, offs);
	for (int i = 0; i < nnames; i++)
		if (offs[i])
			sites[n++] = (struct uprobe_site){ offs[i], 0, false };
	err = uprobe_attach(w, prog_fd, path, sites, n, pid, fds, nfds, cap);
	return err ? err : n;
}
