/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UC_RING_FDS_H
#define UC_RING_FDS_H

#include <stdbool.h>
#include <stdint.h>

#include "tracker.h"

/*
 * A ring first seen at a submission (made before the attach, or
 * inherited) comes without its descriptor. It is looked for among its
 * process's io_uring descriptors (/proc/PID/fd, fdinfo): those whose SQ
 * and CQ sizes and SQPOLL thread match the ring's, and that no ring the
 * model knows holds already. If exactly one is left, that is it; else
 * -1, and the reports say where the ring came from rather than guess.
 *
 * The descriptors are listed at the attach (ring_fds_snapshot), while
 * the process surely lives: its first submission after the attach may be
 * its last act, gone before the checker reads the record.
 */
struct ring_fd_seen {
	uint32_t tgid;
	int fd;
	uint32_t sq_entries, cq_entries;
	bool sqpoll;
	/* SQEs the kernel had consumed and not yet answered with a CQE
	 * (posted or overflowed): the requests in flight, but for those
	 * that skip their CQE (more) or post several (fewer) */
	uint32_t unanswered;
};

struct ring_fds {
	struct ring_fd_seen *v;
	int n;
};

/* Does process @tgid hold an io_uring descriptor now? (--check -a) */
bool ring_fds_held(uint32_t tgid);
/* Lists process @tgid's io_uring descriptors now; returns the sum of
 * their unanswered SQEs. */
uint64_t ring_fds_snapshot(struct ring_fds *s, uint32_t tgid);
/* The descriptor of @c's ring (c->fd < 0), or -1: from the list taken
 * at the attach, else (a process followed since) looked at now. */
int ring_fd_find(struct ring_fds *s, const struct uc_tracker *t,
		 const struct uc_ring_create *c);
void ring_fds_free(struct ring_fds *s);

#endif
