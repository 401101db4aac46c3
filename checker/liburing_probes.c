// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "liburing_probes.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "liburing_files.h"
#include "session.h"

/* Entry points through which a liburing program submits or looks for
 * completions (liburing 2.0 .. 2.x); absent ones are skipped. */
static const char *const entry_points[] = {
	"io_uring_submit", "io_uring_submit_and_wait",
	"io_uring_submit_and_wait_timeout", "io_uring_submit_and_get_events",
	"__io_uring_get_cqe", "io_uring_wait_cqes", "io_uring_wait_cqe_timeout",
	"io_uring_peek_batch_cqe", "io_uring_get_events", "io_uring_queue_exit",
};
#define N_ENTRY_POINTS	((int)(sizeof(entry_points) / sizeof(entry_points[0])))

enum {
	LIBURING_PROC_TARGET = 1,	/* probed before it ran */
	LIBURING_PROC_DONE = 2,		/* looked at since it has a ring */
};

void liburing_probes_setup(struct liburing_probes *lp)
{
	memset(lp, 0, sizeof(*lp));
	lp->prog_fd = -1;
	lp->out = stderr;
	u64map_init(&lp->procs);
}

static const char inline_note[] =
	"uringcheck: note: uprobes see calls into liburing, not its inline "
	"io_uring_cqe_seen()/io_uring_cq_advance(): a reap is timed at the next "
	"liburing call or sampler tick\n";

int liburing_probes_init(struct liburing_probes *lp, struct uc_session *s, const char *exe,
			 FILE *out)
{
	bool multi;

	lp->out = out;
	lp->prog_fd = session_uprobe_prog(s, "uc_liburing_call", &multi);
	if (lp->prog_fd < 0 || uprobe_way_init(&lp->way, multi)) {
		lp->prog_fd = -1;
		fprintf(stderr, "uringcheck: reap timing: kernel-side sampler only: no "
			"uprobes on this kernel (or a shared kernel side without the "
			"liburing probe)\n");
		return -1;
	}
	if (!exe)
		fprintf(stderr, "uringcheck: reap timing: liburing uprobes in each followed "
			"process from its first ring on, plus the kernel-side sampler\n%s",
			inline_note);
	return 0;
}

/* The @N_ENTRY_POINTS found in @path, for @pid: how many, or -errno. */
static int attach_file(struct liburing_probes *lp, const char *path, pid_t pid)
{
	return liburing_attach_file(&lp->way, lp->prog_fd, path, entry_points, N_ENTRY_POINTS,
				    pid, lp->fds, &lp->nfds,
				    (int)(sizeof(lp->fds) / sizeof(lp->fds[0])));
}

/* A failure to probe @tgid told, once for a full table. */
static void attach_failed(struct liburing_probes *lp, uint32_t tgid, int err)
{
	if (err == -ENOSPC) {
		if (!lp->full_told)
			fprintf(lp->out, "==%u==uringcheck: note: liburing uprobes in the first "
				"processes only (probe table full): the others' reaps are timed "
				"by the sampler alone\n", tgid);
		lp->full_told = true;
		return;
	}
	fprintf(lp->out, "==%u==uringcheck: note: cannot probe liburing in pid %u (%s): its "
		"reaps are timed by the sampler alone\n", tgid, tgid, strerror(-err));
}

void liburing_probes_follow(struct liburing_probes *lp, pid_t pid, const char *exe)
{
	bool is_shared;
	int nshared = 0, nstatic = 0;
	struct stat st;

	if (lp->prog_fd < 0)
		return;
	is_shared = liburing_needed(exe);
	if (!stat(exe, &st)) {
		lp->exe_dev = st.st_dev;
		lp->exe_ino = st.st_ino;
	}
	/* The shared library is probed even when the program does not need
	 * it: a dlopen may map it. Breakpoints go only where it is mapped. */
	if (liburing_system(lp->system_lib, sizeof(lp->system_lib)))
		nshared = attach_file(lp, lp->system_lib, pid);
	/* liburing.a linked in: its entry points are the executable's */
	if (nshared >= 0)
		nstatic = attach_file(lp, exe, pid);
	u64map_put(&lp->procs, (uint64_t)pid, (void *)(uintptr_t)LIBURING_PROC_TARGET);
	if (nshared < 0 || nstatic < 0)
		attach_failed(lp, (uint32_t)pid, nshared < 0 ? nshared : nstatic);

	if (nstatic > 0)
		fprintf(stderr, "uringcheck: reap timing: liburing uprobes on %d entry "
			"points of %s (static liburing)%s%s, plus the kernel-side sampler\n",
			nstatic, exe, nshared > 0 ? " and of " : "",
			nshared > 0 ? lp->system_lib : "");
	else if (nshared > 0)
		fprintf(stderr, "uringcheck: reap timing: liburing uprobes on %d entry "
			"points of %s, plus the kernel-side sampler%s%s%s\n", nshared,
			lp->system_lib, is_shared ? "" : " ('", is_shared ? "" : exe,
			is_shared ? "" : "' does not link liburing itself: processes it "
			"starts that do are probed from their first ring)");
	else
		fprintf(stderr, "uringcheck: reap timing: kernel-side sampler only for "
			"'%s': no liburing.so.2 on this system and it does not link "
			"liburing statically (processes it starts that map a liburing are "
			"probed from their first ring)\n", exe);
	fputs(inline_note, stderr);
}

/* Whether @a and the file @dev/@ino are one file. */
static bool same_file(const char *a, dev_t dev, ino_t ino)
{
	struct stat st;

	return ino && !stat(a, &st) && st.st_dev == dev && st.st_ino == ino;
}

void liburing_probes_process(struct liburing_probes *lp, uint32_t tgid)
{
	uintptr_t bits;
	char lib[PATH_MAX], exe[64];
	int found, nlib = 0, nexe = 0;
	struct stat sys;

	if (lp->prog_fd < 0)
		return;		/* off: called for every new submitter */
	bits = (uintptr_t)u64map_get(&lp->procs, tgid);
	if (bits & LIBURING_PROC_DONE)
		return;
	u64map_put(&lp->procs, tgid, (void *)(bits | LIBURING_PROC_DONE));
	found = liburing_mapped(tgid, lib, sizeof(lib));
	if (found == -ENAMETOOLONG) {
		attach_failed(lp, tgid, found);
		return;
	}
	if (found < 0)
		return;		/* gone already */
	snprintf(exe, sizeof(exe), "/proc/%u/exe", tgid);
	/* The target was probed before it ran: only what it exec'd since. */
	if (found && (bits & LIBURING_PROC_TARGET) && !stat(lp->system_lib, &sys) &&
	    same_file(lib, sys.st_dev, sys.st_ino))
		found = 0;
	if (found)
		nlib = attach_file(lp, lib, (pid_t)tgid);
	if (nlib >= 0 && !((bits & LIBURING_PROC_TARGET) && same_file(exe, lp->exe_dev, lp->exe_ino)))
		nexe = attach_file(lp, exe, (pid_t)tgid);
	if (nlib < 0 || nexe < 0)
		attach_failed(lp, tgid, nlib < 0 ? nlib : nexe);
}

void liburing_probes_stop(struct liburing_probes *lp)
{
	uprobe_events_close(lp->fds, lp->nfds);
	lp->nfds = 0;
	lp->prog_fd = -1;
}

void liburing_probes_free(struct liburing_probes *lp)
{
	liburing_probes_stop(lp);
	u64map_free(&lp->procs);
}
