/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One kernel side for every uringcheck instance on the machine.
 *
 * The first instance loads and attaches the BPF programs; the ones that
 * start while it runs take its map and link descriptors (pidfd_getfd)
 * instead of loading their own, and each becomes one session of the
 * shared programs (bpf/uringcheck.h, UC_MAX_SESSIONS). Every io_uring
 * event then runs each program once, however many instances run: with
 * a private set each, it ran once per instance.
 *
 * Nothing is pinned. The programs stay attached exactly as long as some
 * instance holds their link descriptors, and the kernel closes those
 * when the last holder exits, even if it is killed. The registry in
 * /run/uringcheck lists the live holders and the descriptor numbers they
 * hold; a flock on its lock file orders joining, slot claims and leaving.
 */
#ifndef UC_SHARED_H
#define UC_SHARED_H

#include <stdbool.h>
#include <stdint.h>

struct uc_shared_obj {
	char name[64];		/* map name, or "link:" + program name */
	int fd;			/* in this process */
	uint32_t id;		/* the kernel object's id */
};

struct uc_shared {
	int lock_fd;		/* -1: sharing unavailable */
	char registry[128];
	int nobjs, cap;
	struct uc_shared_obj *objs;	/* grows: every map and link is listed */
	int holder;		/* the pid joined through, 0: loaded here */
	int nstale;		/* listed holders that could not be joined */
	int stale[8];
};

/* Takes the lock for kernel sides tagged @tag (one per BPF object and
 * global setting). Returns -1, with lock_fd -1, if /run is unusable:
 * the instance then works alone. */
int shared_lock(struct uc_shared *sh, const char *tag);
void shared_unlock(struct uc_shared *sh);
/* Under the lock: takes every descriptor of a live registered instance.
 * Returns 0 when joined, -1 if there is none to join. */
int shared_join(struct uc_shared *sh);
/* Remembers a descriptor this process holds for the shared side. */
void shared_add(struct uc_shared *sh, const char *name, int fd);
int shared_find(const struct uc_shared *sh, const char *name);
/* Under the lock: lists this process as a holder / removes it. */
int shared_register(const struct uc_shared *sh);
void shared_unregister(const struct uc_shared *sh);
/* Forgets the descriptors (closing those shared_join took). */
void shared_drop(struct uc_shared *sh);
/* ... and releases the lock file. */
void shared_close(struct uc_shared *sh);

#endif
