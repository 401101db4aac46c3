/* SPDX-License-Identifier: GPL-2.0 */
/*
 * free-inflight's uprobes on glibc's free and realloc, one set per
 * followed process (checker/heap_probes.c): a concern of the check mode's
 * session, as the liburing uprobes are. The releases they send are
 * judged by a rule (rules/heap_release.c).
 *
 * Which processes: the target is probed before it starts
 * (heap_probes_follow); each process is looked at again when it creates
 * its first ring (heap_probes_process).
 */
#ifndef UC_HEAP_PROBES_H
#define UC_HEAP_PROBES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "heap_alloc_probes.h"
#include "u64map.h"

struct uc_session;

#define HEAP_PROBES_LIBS	8	/* distinct libc files probed */
#define HEAP_PROBES_EVENTS	192	/* perf events held: 3 per process */

struct heap_probes {
	int prog_fd;			/* -1: off */
	int uprobe_type, retprobe_bit;
	struct heap_libc {
		char path[PATH_MAX];
		dev_t dev;
		ino_t ino;
		uint64_t off_free, off_realloc;	/* file offsets, 0: none */
	} libs[HEAP_PROBES_LIBS];
	int nlibs;
	int fds[HEAP_PROBES_EVENTS * 2];	/* perf events and their links */
	int nfds;
	unsigned int processes;
	bool full_told;
	struct u64map procs;		/* tgid -> HEAP_PROC_* bits */
	struct heap_alloc_probes alloc;	/* attached with these, if on */
};

/* Nothing attached, off until heap_probes_init(). */
void heap_probes_setup(struct heap_probes *hp);
/* The program to attach, own or shared; -1 if uprobes are unavailable. */
int heap_probes_init(struct heap_probes *hp, struct uc_session *s);
/* The target @pid, before it runs: probed through the libc.so.6 this
 * program maps (checked again at its first ring). */
void heap_probes_follow(struct heap_probes *hp, pid_t pid, FILE *out);
/* Process @tgid created a ring: the first time, its own libc.so.6 probed
 * if it is another file, a process forked from the target probed from
 * now on, and one without glibc's libc.so.6 (a static binary, another
 * libc) or with another allocator mapped told in one line on @out. */
void heap_probes_process(struct heap_probes *hp, uint32_t tgid, FILE *out);
/* Every probe closed (before a --keep-warm holder inherits them). */
void heap_probes_stop(struct heap_probes *hp);
void heap_probes_free(struct heap_probes *hp);

#endif
