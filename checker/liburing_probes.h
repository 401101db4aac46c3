/* SPDX-License-Identifier: GPL-2.0 */
/*
 * liburing uprobe mode (--liburing-uprobes): probes on liburing's
 * non-inlined entry points sharpen reap-lag timing (bpf/reap_lag.bpf.h,
 * uc_liburing_call). Like the heap and SQPOLL probes, they are attached
 * per followed process, so no other process on the machine takes their
 * traps:
 *   - the spawned target before it runs: the system's liburing.so.2 and,
 *     when liburing.a is linked in, its executable
 *     (liburing_probes_follow);
 *   - any other followed process when its first ring is read, or its
 *     first submission on a ring another made: the liburing it maps and
 *     its executable (liburing_probes_process).
 * Calls a process makes before its probes are in are not seen: the
 * kernel-side sampler still times those reaps, without their site.
 */
#ifndef UC_LIBURING_PROBES_H
#define UC_LIBURING_PROBES_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "u64map.h"
#include "uprobe_events.h"

struct uc_session;

#define LIBURING_PROBES_EVENTS	256	/* perf events held */

struct liburing_probes {
	int prog_fd;			/* -1: off */
	struct uprobe_way way;		/* links or perf events */
	int fds[LIBURING_PROBES_EVENTS * 2];	/* links (and their perf events) */
	int nfds;
	bool full_told;
	FILE *out;			/* where notes go */
	struct u64map procs;		/* tgid -> LIBURING_PROC_* bits */
	/* What liburing_probes_follow() probed in the target, for its first
	 * ring to tell whether it still runs that (it may have exec'd). */
	char system_lib[PATH_MAX];
	dev_t exe_dev;
	ino_t exe_ino;
};

/* Nothing attached, off (and silent) until liburing_probes_init(). */
void liburing_probes_setup(struct liburing_probes *lp);
/* The program to attach, own or shared: 0, or -1 (told) if it cannot
 * be. The mode is told now for a run that attaches (@exe NULL), at
 * liburing_probes_follow() for a spawned @exe; a process's notes go to
 * @out (the report). */
int liburing_probes_init(struct liburing_probes *lp, struct uc_session *s, const char *exe,
			 FILE *out);
/* The spawned target @pid, before it runs @exe: probed, and the mode
 * told in one line. */
void liburing_probes_follow(struct liburing_probes *lp, pid_t pid, const char *exe);
/* Process @tgid has a ring: the first time, its liburing probed. */
void liburing_probes_process(struct liburing_probes *lp, uint32_t tgid);
/* Every probe closed (before a --keep-warm holder inherits the rest). */
void liburing_probes_stop(struct liburing_probes *lp);
void liburing_probes_free(struct liburing_probes *lp);

#endif
