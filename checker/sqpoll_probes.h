/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stacks for SQPOLL submissions (bpf/sqpoll_stacks.bpf.h): uprobes on
 * liburing's publishing calls (io_uring_submit and its siblings), in the
 * liburing a process maps or in its executable when liburing is linked in
 * statically, attached for that process alone at its first SQPOLL ring:
 * a process without one pays nothing. A process whose liburing cannot be
 * probed is told in one line; one without liburing is not (findings
 * about its SQPOLL requests say why they have no stack).
 */
#ifndef UC_SQPOLL_PROBES_H
#define UC_SQPOLL_PROBES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "u64map.h"
#include "uprobe_events.h"

struct uc_session;

#define SQPOLL_PROBES_EVENTS	256	/* perf events held */

struct sqpoll_probes {
	int prog_fd;			/* -1: off */
	bool wanted;			/* sqpoll_probes_init() was called */
	struct uprobe_way way;		/* links or perf events */
	int fds[SQPOLL_PROBES_EVENTS * 2];	/* links (and their perf events) */
	int nfds;
	bool off_told, full_told;
	struct u64map procs;		/* tgid -> looked at */
};

/* Nothing attached, off (and silent) until sqpoll_probes_init(). */
void sqpoll_probes_setup(struct sqpoll_probes *sp);
/* The program to attach, own or shared; -1 if it cannot be (no uprobe
 * perf events, or a shared set too old to have it). */
int sqpoll_probes_init(struct sqpoll_probes *sp, struct uc_session *s);
/* Process @tgid created (or first used) an SQPOLL ring: the first time,
 * its liburing probed, or why not told on @out. */
void sqpoll_probes_process(struct sqpoll_probes *sp, uint32_t tgid, FILE *out);
/* Every probe closed (before a --keep-warm holder inherits them). */
void sqpoll_probes_stop(struct sqpoll_probes *sp);
void sqpoll_probes_free(struct sqpoll_probes *sp);

#endif
