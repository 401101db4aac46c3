/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-process uprobes, for the check mode's probes (heap_probes.c,
 * heap_alloc_probes.c, sqpoll_probes.c): a probe whose target is one
 * process plants its breakpoints in that address space only, so no other
 * process on the machine pays for it. As uprobe_multi links where the
 * kernel has them (v6.12+), else as perf events. Opened here rather than
 * through libbpf's bpf_program__attach_uprobe_opts() because a run that
 * joined another instance's programs has no loaded bpf_program, only the
 * shared program's descriptor (checker/shared.c).
 */
#ifndef UC_UPROBE_EVENTS_H
#define UC_UPROBE_EVENTS_H

#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* How this run attaches per-process uprobes: as uprobe_multi links
 * (the programs' _multi form was loaded, bpf/uprobe_forms.bpf.h), else as
 * perf events of the uprobe PMU (its type, the config bit of a return). */
struct uprobe_way {
	bool multi;
	int type, retprobe_bit;
};

/* The form @multi says; for perf events, the PMU read. 0, or -1 if this
 * kernel has no uprobe perf events (the perf form only). */
int uprobe_way_init(struct uprobe_way *w, bool multi);

/* A probed function: its file offset, its attach cookie, entry or
 * return. */
struct uprobe_site {
	uint64_t off, cookie;
	bool ret;
};
#define UPROBE_SITES_MAX	16	/* in one uprobe_attach() */

/* File offset of the defined function @name in @elf (its .dynsym, then
 * its .symtab), 0 if none. */
uint64_t uprobe_func_offset(Elf *elf, const char *name);
/* The same, opening @path. */
uint64_t uprobe_file_func_offset(const char *path, const char *name);
/* The offsets of the @n functions @names into @offs (0: not defined),
 * @path read once. */
void uprobe_file_func_offsets(const char *path, const char *const *names, int n,
			      uint64_t *offs);

/* Attaches @prog_fd at the @n @sites of @path for process @pid (its
 * address space: every thread, and what it execs): one link for the
 * entries and one for the returns, or a perf event and its link per site.
 * The descriptors are appended to @fds (*@nfds of @cap used). 0, or
 * -errno (-ENOSPC: @fds full; -E2BIG: more than UPROBE_SITES_MAX
 * sites); what was attached before a failure stays
 * in @fds. */
int uprobe_attach(const struct uprobe_way *w, int prog_fd, const char *path,
		  const struct uprobe_site *sites, int n, pid_t pid, int *fds, int *nfds,
		  int cap);

/* Closes the @n descriptors of @fds (perf events and links; -1 skipped)
 * without waiting: each uprobe's release waits for grace periods under a
 * kernel mutex, so a process of its own does it (uprobe_events.c). Sets
 * them to -1. */
void uprobe_events_close(int *fds, int n);

#endif
