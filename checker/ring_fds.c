// SPDX-License-Identifier: GPL-2.0
/* The descriptor of a ring the checker did not see created (ring_fds.h). */
#define _GNU_SOURCE
#include "ring_fds.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xalloc.h"

#define SETUP_SQPOLL	(1U << 1)	/* IORING_SETUP_SQPOLL */

/* An io_uring descriptor's sizes and SQPOLL thread, from its fdinfo. */
static bool read_fdinfo(uint32_t tgid, int fd, struct ring_fd_seen *e)
{
	unsigned int sqmask = 0, cqmask = 0, sq_head = 0, cq_tail = 0, overflowed = 0;
	bool have_sq = false, have_cq = false;
	char path[64], line[256];
	int32_t open;
	FILE *f;
	int tid;

	snprintf(path, sizeof(path), "/proc/%u/fdinfo/%d", tgid, fd);
	f = fopen(path, "re");
	if (!f)
		return false;
	*e = (struct ring_fd_seen){ .tgid = tgid, .fd = fd };
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "SqMask: %x", &sqmask) == 1)
			have_sq = true;
		else if (sscanf(line, "CqMask: %x", &cqmask) == 1)
			have_cq = true;
		else if (sscanf(line, "SqThread: %d", &tid) == 1)
			e->sqpoll = tid > 0;
		else if (sscanf(line, "CachedSqHead: %u", &sq_head) == 1 ||
			 sscanf(line, "CachedCqTail: %u", &cq_tail) == 1)
			;
		else if (!strncmp(line, "  user_data=", 12))
			overflowed++;	/* a CQE on the overflow list */
	}
	fclose(f);
	/* Both counters wrap at 2^32 together; more CQEs than SQEs (some
	 * requests post several) is no request in flight. */
	open = (int32_t)(sq_head - cq_tail - overflowed);
	e->unanswered = open > 0 ? (uint32_t)open : 0;
	e->sq_entries = sqmask + 1;
	e->cq_entries = cqmask + 1;
	return have_sq && have_cq;
}

/* The next io_uring descriptor of process @tgid in @dir (/proc/TGID/fd),
 * or -1 at the end. */
static int next_ring_fd(DIR *dir, uint32_t tgid)
{
	char path[64], target[64];
	struct dirent *d;

	while ((d = readdir(dir))) {
		ssize_t len;
		int fd;

		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		fd = atoi(d->d_name);
		snprintf(path, sizeof(path), "/proc/%u/fd/%d", tgid, fd);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = 0;
		if (!strcmp(target, "anon_inode:[io_uring]"))
			return fd;
	}
	return -1;
}

static DIR *open_fds(uint32_t tgid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%u/fd", tgid);
	return opendir(path);
}

bool ring_fds_held(uint32_t tgid)
{
	DIR *dir = open_fds(tgid);
	bool held;

	if (!dir)
		return false;
	held = next_ring_fd(dir, tgid) >= 0;
	closedir(dir);
	return held;
}

uint64_t ring_fds_snapshot(struct ring_fds *s, uint32_t tgid)
{
	uint64_t unanswered = 0;
	DIR *dir = open_fds(tgid);
	int fd;

	if (!dir)
		return 0;	/* gone: nothing to find */
	while ((fd = next_ring_fd(dir, tgid)) >= 0) {
		struct ring_fd_seen e;

		if (!read_fdinfo(tgid, fd, &e))
			continue;
		s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
		s->v[s->n++] = e;
		unanswered += e.unanswered;
	}
	closedir(dir);
	return unanswered;
}

struct held {
	uint32_t tgid;
	int fd;
	bool found;
};

static void check_held(uint64_t key, void *val, void *arg)
{
	const struct uc_ring *r = val;
	struct held *h = arg;

	(void)key;
	if (r->tgid == h->tgid && r->fd == h->fd)
		h->found = true;
}

/* One candidate among the listed descriptors of @c's process, or -1. */
static int pick(const struct ring_fds *s, const struct uc_tracker *t,
		const struct uc_ring_create *c, bool *listed)
{
	int found = -1, n = 0;

	*listed = false;
	for (int i = 0; i < s->n; i++) {
		const struct ring_fd_seen *e = &s->v[i];
		struct held h = { .tgid = e->tgid, .fd = e->fd };

		if (e->tgid != c->hdr.tgid)
			continue;
		*listed = true;
		/* Sizes the record does not carry (0) are not compared. */
		if ((c->sq_entries && e->sq_entries != c->sq_entries) ||
		    (c->cq_entries && e->cq_entries != c->cq_entries) ||
		    e->sqpoll != !!(c->setup_flags & SETUP_SQPOLL))
			continue;
		u64map_each(&t->rings, check_held, &h);
		if (h.found)
			continue;
		found = e->fd;
		n++;
	}
	return n == 1 ? found : -1;
}

int ring_fd_find(struct ring_fds *s, const struct uc_tracker *t,
		 const struct uc_ring_create *c)
{
	bool listed;
	int fd = pick(s, t, c, &listed);

	if (listed)
		return fd;
	ring_fds_snapshot(s, c->hdr.tgid);
	return pick(s, t, c, &listed);
}

void ring_fds_free(struct ring_fds *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}
