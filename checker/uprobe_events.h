/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-process uprobes as perf events, for the check mode's probes
 * (heap_probes.c, sqpoll_probes.c): a uprobe perf event whose target is
 * one process plants its breakpoint in that address space only, so no
 * other process on the machine pays for it. Opened here rather than
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

/* The kernel's uprobe PMU: its type and the config bit of a return
 * probe. 0, or -1 if this kernel has no uprobe perf events. */
int uprobe_pmu(int *type, int *retprobe_bit);

/* File offset of the defined function @name in @elf (its .dynsym, then
 * its .symtab), 0 if none. */
uint64_t uprobe_func_offset(Elf *elf, const char *name);
/* The same, opening @path. */
uint64_t uprobe_file_func_offset(const char *path, const char *name);

/* Attaches program @prog_fd at @path + @off (a return probe if @ret) for
 * process @pid, with @cookie. Into @fds: the perf event and its link (-1
 * if the kernel attached the program to the event itself). 0, or
 * -errno. */
int uprobe_open(int type, int retprobe_bit, int prog_fd, const char *path, uint64_t off,
		bool ret, pid_t pid, uint64_t cookie, int fds[2]);

/* Closes the @n descriptors of @fds (perf events and links; -1 skipped)
 * without waiting: each uprobe's release waits for grace periods under a
 * kernel mutex, so a process of its own does it (uprobe_events.c). Sets
 * them to -1. */
void uprobe_events_close(int *fds, int n);

#endif
