// SPDX-License-Identifier: GPL-2.0
/*
 * free-inflight's allocation probes (heap_alloc_probes.h). Each call is
 * a uretprobe whose cookie names it (enum uc_heap_alloc_fn); glibc
 * exports several names at one address (aligned_alloc is memalign,
 * malloc is __libc_malloc): a second probe there would only fire twice,
 * so each address is probed once, under its first name.
 */
#define _GNU_SOURCE
#include "heap_alloc_probes.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/types.h>
#include "uprobe_events.h"
#include "uringcheck.h"

/* the entries' cookies (bpf/heap_alloc.bpf.h) */
#define PM_ENTRY	16	/* posix_memalign's: its out-pointer */
#define REALLOC_ENTRY	17	/* realloc's: a malloc inside is its */

static const struct {
	const char *name;
	uint32_t cookie;
	bool ret;
} funcs[HEAP_ALLOC_FUNCS] = {
	{ "malloc", UC_ALLOC_MALLOC, true },
	{ "calloc", UC_ALLOC_CALLOC, true },
	{ "realloc", UC_ALLOC_REALLOC, true },
	{ "realloc", REALLOC_ENTRY, false },
	{ "memalign", UC_ALLOC_MEMALIGN, true },
	{ "aligned_alloc", UC_ALLOC_MEMALIGN, true },
	{ "valloc", UC_ALLOC_VALLOC, true },
	{ "pvalloc", UC_ALLOC_VALLOC, true },
	/* its result is written through its first argument: kept at entry */
	{ "posix_memalign", PM_ENTRY, false },
	{ "posix_memalign", UC_ALLOC_POSIX_MEMALIGN, true },
};

void heap_alloc_probes_setup(struct heap_alloc_probes *ap)
{
	memset(ap, 0, sizeof(*ap));
	ap->prog_fd = -1;
}

void heap_alloc_probes_init(struct heap_alloc_probes *ap, int prog_fd)
{
	ap->prog_fd = prog_fd;
}

/* The offsets in @path, found once per file; NULL if the table is full. */
static const uint64_t *offsets(struct heap_alloc_probes *ap, const char *path)
{
	uint64_t *off;

	for (int i = 0; i < ap->nlibs; i++)
		if (!strcmp(ap->libs[i].path, path))
			return ap->libs[i].off;
	if (ap->nlibs == HEAP_ALLOC_LIBS)
		return NULL;
	snprintf(ap->libs[ap->nlibs].path, sizeof(ap->libs[0].path), "%s", path);
	off = ap->libs[ap->nlibs++].off;
	for (int i = 0; i < HEAP_ALLOC_FUNCS; i++) {
		off[i] = uprobe_file_func_offset(path, funcs[i].name);
		for (int j = 0; j < i && off[i]; j++)
			if (off[j] == off[i] && funcs[j].ret == funcs[i].ret)
				off[i] = 0;	/* an alias: probed already */
	}
	return off;
}

int heap_alloc_probes_attach(struct heap_alloc_probes *ap, const struct uprobe_way *w,
			     const char *libc_path, pid_t pid)
{
	struct uprobe_site sites[HEAP_ALLOC_FUNCS];
	const uint64_t *off;
	int n = 0;

	if (ap->prog_fd < 0)
		return 0;
	off = offsets(ap, libc_path);
	if (!off)
		return -ENOSPC;
	for (int i = 0; i < HEAP_ALLOC_FUNCS; i++)
		if (off[i])
			sites[n++] = (struct uprobe_site){ off[i], funcs[i].cookie, funcs[i].ret };
	return uprobe_attach(w, ap->prog_fd, libc_path, sites, n, pid, ap->fds, &ap->nfds,
			     HEAP_ALLOC_EVENTS * 2);
}

void heap_alloc_probes_stop(struct heap_alloc_probes *ap)
{
	uprobe_events_close(ap->fds, ap->nfds);
	ap->nfds = 0;
	ap->prog_fd = -1;
}
