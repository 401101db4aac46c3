/* SPDX-License-Identifier: GPL-2.0 */
/*
 * free-inflight's uprobes on glibc's free and realloc, one set per
 * followed process (checker/heap_probes.c): a concern of the check mode's
 * session, as the liburing uprobes are. The releases they send are
 * judged by a rule (rules/heap_release.c).
 *
 * Which processes: the target is probed before it starts
 * (heap_probes_follow); each process is looked at again when it creates
 * its first ring (heap_probes_process), or submits first on a ring another
 * process made (heap_probes_process_shared).
 *
 * Silence is no verdict: a process that used io_uring and whose heap
 * releases are not judged (the probes turned off, no glibc libc.so.6,
 * another allocator mapped, the attach refused, gone before it could be
 * looked at) is counted by why, and told in one line at the run's end
 * (heap_probes_say; --json: processes_heap_unjudged).
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
#include "uprobe_events.h"
#include "u64map.h"

struct uc_session;

#define HEAP_PROBES_LIBS	8	/* distinct libc files probed */
#define HEAP_PROBES_EVENTS	192	/* probes held: 3 per process */

/* Why a process that used io_uring has its heap releases unjudged. */
enum heap_unjudged {
	HEAP_UNJUDGED_OFF,		/* nothing attached this run (off_why) */
	HEAP_UNJUDGED_NO_GLIBC,		/* maps no glibc libc.so.6 */
	HEAP_UNJUDGED_ALLOCATOR,	/* maps another malloc (jemalloc, ...) */
	HEAP_UNJUDGED_ATTACH,		/* its probes could not be attached */
	HEAP_UNJUDGED_GONE,		/* exited before it was looked at */
	HEAP_UNJUDGED_SHARED,		/* submits on a ring another made */
	HEAP_UNJUDGED_LATE,		/* the target, its own libc probed only
					 * once its first ring was read */
	HEAP_UNJUDGED_OWN_GONE,		/* the target, its own libc, gone before
					 * that could be probed */
	HEAP_UNJUDGED__COUNT
};

struct heap_probes {
	int prog_fd;			/* -1: off */
	bool judged;			/* free-inflight among --hazards */
	const char *off_why;		/* judged, but nothing attached: why */
	struct uprobe_way way;		/* links or perf events */
	struct heap_libc {
		char path[PATH_MAX];
		dev_t dev;
		ino_t ino;
		uint64_t off_free, off_realloc;	/* file offsets, 0: none */
	} libs[HEAP_PROBES_LIBS];
	int nlibs;
	int fds[HEAP_PROBES_EVENTS * 2];	/* links (and their perf events) */
	int nfds;
	unsigned int processes;
	struct u64map procs;		/* tgid -> HEAP_PROC_* bits */
	struct heap_alloc_probes alloc;	/* attached with these, if on */
	/* processes unjudged, by why; the first of each and what of it */
	uint64_t unjudged[HEAP_UNJUDGED__COUNT];
	uint32_t unjudged_pid[HEAP_UNJUDGED__COUNT];
	char unjudged_what[HEAP_UNJUDGED__COUNT][256];
};

/* Nothing attached, off until heap_probes_init(). */
void heap_probes_setup(struct heap_probes *hp);
/* The program to attach, own or shared; -1 if uprobes are unavailable. */
int heap_probes_init(struct heap_probes *hp, struct uc_session *s);
/* free-inflight is judged (among --hazards) but nothing will be attached
 * this run, for the reason @why (--heap-probes=no, no uprobes): every
 * process that uses io_uring is counted unjudged. */
void heap_probes_off(struct heap_probes *hp, const char *why);
/* The target @pid, before it runs (its executable @exe, NULL: unknown):
 * probed through the libc.so.6 this program maps (checked again at its
 * first ring); a static one noted. */
void heap_probes_follow(struct heap_probes *hp, pid_t pid, const char *exe);
/* Process @tgid submitted first on a ring another process made (inherited
 * or received): looked at as below, and counted unjudged, since the
 * kernel side looks for a released chunk only among the rings the
 * process made (bpf/heap_release.bpf.h). */
void heap_probes_process_shared(struct heap_probes *hp, uint32_t tgid);
/* The libc.so.6 the kernel saw a process map at its first ring (the
 * mapping records sent with it, v6.7+): what is left to know of a
 * process gone before its ring was read. */
struct heap_libc_sent {
	uint64_t inode;
	char path[PATH_MAX];		/* as the process names it */
};

/* The libc.so.6 the kernel saw process @tgid map (its mapping records),
 * into @out; false if not known. */
typedef bool (*heap_libc_sent_fn)(void *ctx, uint32_t tgid, struct heap_libc_sent *out);

/* Process @tgid created a ring: the first time, its own libc.so.6 probed
 * if it is another file, a process forked from the target probed from
 * now on; one whose releases are not judged (without glibc's libc.so.6,
 * with another allocator mapped, its probes refused, the target gone
 * before its own libc, which @sent(@ctx) names, could be probed)
 * counted. @sent: NULL if such records are not kept; asked only for a
 * process gone before its first look. */
void heap_probes_process(struct heap_probes *hp, uint32_t tgid, heap_libc_sent_fn sent,
			 void *ctx);
/* The processes counted unjudged, in total (--json). */
uint64_t heap_probes_unjudged(const struct heap_probes *hp);
/* ... told in one note line on @out, "==@pid==" first; nothing if none. */
void heap_probes_say(const struct heap_probes *hp, FILE *out, uint32_t pid);
/* Every probe closed (before a --keep-warm holder inherits them). */
void heap_probes_stop(struct heap_probes *hp);
void heap_probes_free(struct heap_probes *hp);

#endif
