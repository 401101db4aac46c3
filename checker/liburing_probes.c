// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "liburing_probes.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session.h"
#include "uringcheck.skel.h"

/* Entry points through which a liburing program submits or looks for
 * completions (liburing 2.0 .. 2.x); absent ones are skipped. */
static const char *const entry_points[] = {
	"io_uring_submit", "io_uring_submit_and_wait",
	"io_uring_submit_and_wait_timeout", "io_uring_submit_and_get_events",
	"__io_uring_get_cqe", "io_uring_wait_cqes", "io_uring_wait_cqe_timeout",
	"io_uring_peek_batch_cqe", "io_uring_get_events", "io_uring_queue_exit",
};

static const char *const lib_dirs[] = {
	"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/local/lib",
	"/usr/lib64", "/usr/lib",
};

/*
 * How @path uses liburing: defines io_uring_submit itself (liburing.a
 * linked in) and/or needs liburing.so (DT_NEEDED).
 */
static void elf_liburing_use(const char *path, bool *is_static, bool *is_shared)
{
	bool found = false;
	Elf_Scn *scn = NULL;
	Elf *elf;
	int fd;

	*is_static = *is_shared = false;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh))
			continue;
		data = elf_getdata(scn, NULL);
		if (sh.sh_type == SHT_DYNAMIC) {
			for (size_t i = 0; data && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Dyn dyn;
				const char *name;

				if (!gelf_getdyn(data, i, &dyn) || dyn.d_tag != DT_NEEDED)
					continue;
				name = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
				if (name && !strncmp(name, "liburing.so", 11))
					*is_shared = true;
			}
			continue;
		}
		if (found || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		for (size_t i = 0; data && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && !strcmp(name, "io_uring_submit")) {
				found = true;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	*is_static = found;
}

static int attach_all(struct uc_session *s, const char *path)
{
	int n = 0;

	for (size_t i = 0; i < sizeof(entry_points) / sizeof(entry_points[0]); i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = entry_points[i]);
		struct bpf_link *l;

		l = bpf_program__attach_uprobe_opts(s->skel->progs.uc_liburing_call,
						    -1, path, 0, &uo);
		if (!l)
			continue;	/* not in this liburing version */
		if (s->nprobes < UC_MAX_UPROBES)
			s->probes[s->nprobes++] = l;
		else
			bpf_link__destroy(l);
		n++;
	}
	return n;
}

static bool find_shared(char *out, size_t len)
{
	for (size_t i = 0; i < sizeof(lib_dirs) / sizeof(lib_dirs[0]); i++) {
		snprintf(out, len, "%s/liburing.so.2", lib_dirs[i]);
		if (!access(out, R_OK))
			return true;
	}
	return false;
}

int liburing_probes_attach(struct uc_session *s, const char *exe, FILE *out)
{
	char lib[PATH_MAX], real[PATH_MAX];
	int nshared = 0, nstatic = 0;
	bool is_static = false, is_shared = false;

	if (exe)
		elf_liburing_use(exe, &is_static, &is_shared);
	/* The shared library is probed even when the program itself does not
	 * need it: a child it runs, or a dlopen, may. The BPF side only
	 * counts this run's processes. */
	if (find_shared(lib, sizeof(lib))) {
		if (realpath(lib, real))
			snprintf(lib, sizeof(lib), "%s", real);
		nshared = attach_all(s, lib);
	}
	if (is_static)
		nstatic = attach_all(s, exe);

	if (nstatic)
		fprintf(out, "uringcheck: reap timing: liburing uprobes on %d entry "
			"points of %s (static liburing)%s%s, plus the kernel-side "
			"sampler\n", nstatic, exe, nshared ? " and of " : "",
			nshared ? lib : "");
	else if (nshared)
		fprintf(out, "uringcheck: reap timing: liburing uprobes on %d entry "
			"points of %s, plus the kernel-side sampler%s%s%s\n", nshared,
			lib, is_shared ? "" : " ('",
			is_shared ? "" : (exe ? exe : "the program"),
			is_shared ? "" : "' does not link liburing itself: only "
			"processes it starts that do will be probed)");
	else
		fprintf(out, "uringcheck: reap timing: kernel-side sampler only: no "
			"liburing.so.2 on this system and '%s' does not link "
			"liburing statically\n", exe ? exe : "the program");
	if (nshared || nstatic)
		fprintf(out, "uringcheck: note: uprobes see calls into liburing, not "
			"its inline io_uring_cqe_seen()/io_uring_cq_advance(): a reap "
			"is timed at the next liburing call or sampler tick\n");
	return 0;
}
