/* SPDX-License-Identifier: GPL-2.0 */
/*
 * free-inflight's allocation probes (bpf/heap_alloc.bpf.h): glibc's
 * malloc, calloc, realloc, memalign/aligned_alloc, posix_memalign,
 * valloc and pvalloc at their return, in the libc.so.6 the free probe
 * uses, for the same processes: heap_probes.c attaches them beside its
 * own, when they are asked for (--heap-probes=owners).
 */
#ifndef UC_HEAP_ALLOC_PROBES_H
#define UC_HEAP_ALLOC_PROBES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define HEAP_ALLOC_FUNCS	10	/* the probes (heap_alloc_probes.c) */
#define HEAP_ALLOC_LIBS		8
#define HEAP_ALLOC_EVENTS	(64 * HEAP_ALLOC_FUNCS)

struct heap_alloc_probes {
	int prog_fd;			/* -1: off */
	struct {
		char path[4096];
		uint64_t off[HEAP_ALLOC_FUNCS];	/* 0: none (or an alias) */
	} libs[HEAP_ALLOC_LIBS];
	int nlibs;
	int fds[HEAP_ALLOC_EVENTS * 2];	/* links (and their perf events) */
	int nfds;
};

void heap_alloc_probes_setup(struct heap_alloc_probes *ap);
/* Off unless @prog_fd >= 0. */
void heap_alloc_probes_init(struct heap_alloc_probes *ap, int prog_fd);
/* The allocation calls of @libc_path probed for process @pid, the way
 * @w says (the free probe's). 0, or -errno (-ENOSPC: the table is
 * full). */
struct uprobe_way;
int heap_alloc_probes_attach(struct heap_alloc_probes *ap, const struct uprobe_way *w,
			     const char *libc_path, pid_t pid);
void heap_alloc_probes_stop(struct heap_alloc_probes *ap);

#endif
