// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "sqpoll_probes.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <limits.h>
#include <liburing.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "liburing_files.h"
#include "session.h"
#include "uprobe_events.h"
#include "uringcheck.skel.h"

/* The probe reads liburing's struct io_uring at fixed offsets (its ABI
 * since liburing 2.0): checked here against the header we build with. */
_Static_assert(offsetof(struct io_uring, sq.khead) == 0 &&
	       offsetof(struct io_uring, sq.ktail) == 8 &&
	       offsetof(struct io_uring, sq.kring_mask) == 16 &&
	       offsetof(struct io_uring, sq.array) == 48 &&
	       offsetof(struct io_uring, sq.sqes) == 56, "liburing sq pointers moved");
_Static_assert(offsetof(struct io_uring, sq.sqe_head) == UC_LU_SQE_HEAD &&
	       offsetof(struct io_uring, sq.sqe_tail) == UC_LU_SQE_HEAD + 4,
	       "liburing sq.sqe_head/sqe_tail moved");
_Static_assert(offsetof(struct io_uring, flags) == UC_LU_RING_FLAGS &&
	       offsetof(struct io_uring, ring_fd) == UC_LU_RING_FLAGS + 4,
	       "liburing flags/ring_fd moved");

/*
 * liburing's calls that publish SQEs: each flushes the SQ (stores
 * sq.sqe_tail into *sq.ktail) before anything else it does. Absent ones
 * (older liburing) are skipped. Not the waits (io_uring_wait_cqes on a
 * kernel without IORING_FEAT_EXT_ARG publishes a timeout SQE of its
 * own, and what was pending with it): SQEs published there get no stack.
 * In this order: the SQPOLL test cases wait for the second one's
 * breakpoint (testsuite/cases/uc_test.h), by when the first is attached.
 */
static const char *const publishers[] = {
	"io_uring_submit", "io_uring_submit_and_wait", "io_uring_submit_and_wait_timeout",
	"io_uring_submit_and_get_events", "io_uring_submit_and_wait_min_timeout",
	"io_uring_submit_and_wait_reg",
};

void sqpoll_probes_setup(struct sqpoll_probes *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->prog_fd = -1;
	u64map_init(&sp->procs);
}

int sqpoll_probes_init(struct sqpoll_probes *sp, struct uc_session *s)
{
	bool multi;

	sp->wanted = true;
	sp->prog_fd = session_uprobe_prog(s, "uc_sqpoll_publish", &multi);
	if (uprobe_way_init(&sp->way, multi) || sp->prog_fd < 0) {
		sp->prog_fd = -1;
		return -1;
	}
	return 0;
}

/* Every publisher found in @path, for @pid: how many were attached, or
 * -errno of the first failure. */
static int attach_file(struct sqpoll_probes *sp, const char *path, uint32_t pid)
{
	return liburing_attach_file(&sp->way, sp->prog_fd, path, publishers,
				    (int)(sizeof(publishers) / sizeof(publishers[0])), (pid_t)pid,
				    sp->fds, &sp->nfds, (int)(sizeof(sp->fds) / sizeof(sp->fds[0])));
}

void sqpoll_probes_process(struct sqpoll_probes *sp, uint32_t tgid, FILE *out)
{
	char lib[PATH_MAX], exe[64];
	int found, nlib = 0, nexe;

	if (!sp->wanted || u64map_get(&sp->procs, tgid))
		return;
	u64map_put(&sp->procs, tgid, (void *)1);
	if (sp->prog_fd < 0) {
		if (!sp->off_told)
			fprintf(out, "==%u==uringcheck: note: no uprobes (or a shared "
				"kernel side without the SQPOLL probe): requests SQPOLL threads "
				"submit have no stack\n", tgid);
		sp->off_told = true;
		return;
	}
	found = liburing_mapped(tgid, lib, sizeof(lib));
	if (found < 0 && found != -ENAMETOOLONG)
		return;		/* gone already */
	if (found)
		nlib = found < 0 ? found : attach_file(sp, lib, tgid);
	/* liburing.a linked in: its functions are the executable's */
	snprintf(exe, sizeof(exe), "/proc/%u/exe", tgid);
	nexe = nlib < 0 ? 0 : attach_file(sp, exe, tgid);
	if (nlib == -ENOSPC || nexe == -ENOSPC) {
		if (!sp->full_told)
			fprintf(out, "==%u==uringcheck: note: SQPOLL submissions get stacks in "
				"the first processes only (probe table full)\n", tgid);
		sp->full_told = true;
	} else if (nlib < 0 || nexe < 0) {
		fprintf(out, "==%u==uringcheck: note: cannot probe liburing's io_uring_submit "
			"in pid %u (%s): requests its SQPOLL thread submits have no stack\n",
			tgid, tgid, strerror(-(nlib < 0 ? nlib : nexe)));
	}
	/* No liburing at all (fio's engine writes the SQ ring itself): no
	 * line here, as a clean run stays silent; a finding about one of its
	 * SQPOLL requests says why it has no stack. */
}

void sqpoll_probes_stop(struct sqpoll_probes *sp)
{
	uprobe_events_close(sp->fds, sp->nfds);
	sp->nfds = 0;
	sp->prog_fd = -1;
}

void sqpoll_probes_free(struct sqpoll_probes *sp)
{
	sqpoll_probes_stop(sp);
	u64map_free(&sp->procs);
}
