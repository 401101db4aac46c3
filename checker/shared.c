// SPDX-License-Identifier: GPL-2.0
#include "shared.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "xalloc.h"

#define UC_RUN_DIR	"/run/uringcheck"

int shared_lock(struct uc_shared *sh, const char *tag)
{
	char path[160];

	memset(sh, 0, sizeof(*sh));
	sh->lock_fd = -1;
	if (mkdir(UC_RUN_DIR, 0700) && errno != EEXIST)
		return -1;
	snprintf(path, sizeof(path), UC_RUN_DIR "/%s.lock", tag);
	snprintf(sh->registry, sizeof(sh->registry), UC_RUN_DIR "/%s.holders", tag);
	sh->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (sh->lock_fd < 0)
		return -1;
	if (flock(sh->lock_fd, LOCK_EX)) {
		close(sh->lock_fd);
		sh->lock_fd = -1;
		return -1;
	}
	return 0;
}

void shared_unlock(struct uc_shared *sh)
{
	if (sh->lock_fd >= 0)
		flock(sh->lock_fd, LOCK_UN);
}

/* The id of a map, program or link: the second 32-bit word of all three
 * info structures. */
static uint32_t obj_id(int fd)
{
	uint32_t info[64] = { 0 }, len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, info, &len))
		return 0;
	return info[1];
}

/* A free entry at the end of the list, grown as needed. */
static struct uc_shared_obj *next_obj(struct uc_shared *sh)
{
	if (sh->nobjs == sh->cap) {
		sh->cap = sh->cap ? 2 * sh->cap : 64;
		sh->objs = xrealloc(sh->objs, (size_t)sh->cap * sizeof(*sh->objs));
	}
	return &sh->objs[sh->nobjs++];
}

void shared_add(struct uc_shared *sh, const char *name, int fd)
{
	struct uc_shared_obj *o;

	if (fd < 0)
		return;
	o = next_obj(sh);
	snprintf(o->name, sizeof(o->name), "%s", name);
	o->fd = fd;
	o->id = obj_id(fd);
}

int shared_find(const struct uc_shared *sh, const char *name)
{
	for (int i = 0; i < sh->nobjs; i++)
		if (!strcmp(sh->objs[i].name, name))
			return sh->objs[i].fd;
	return -1;
}

void shared_drop(struct uc_shared *sh)
{
	if (sh->holder)
		for (int i = 0; i < sh->nobjs; i++)
			close(sh->objs[i].fd);
	sh->nobjs = 0;
	sh->holder = 0;
}

void shared_close(struct uc_shared *sh)
{
	shared_drop(sh);
	free(sh->objs);
	sh->objs = NULL;
	sh->cap = 0;
	if (sh->lock_fd >= 0)
		close(sh->lock_fd);
	sh->lock_fd = -1;
}

/*
 * One registry line: "PID NAME=FD/ID ...". Takes every descriptor into
 * @sh; fails (and closes what it took) if the holder is gone or any of
 * its descriptors no longer names the object it registered.
 */
static int take_from(struct uc_shared *sh, char *line)
{
	char *save = NULL, *tok = strtok_r(line, " \n", &save);
	int pid = tok ? atoi(tok) : 0, pidfd;

	if (pid <= 0 || pid == getpid())
		return -1;
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return -1;
	sh->nobjs = 0;
	sh->holder = pid;
	while ((tok = strtok_r(NULL, " \n", &save))) {
		char name[64];
		struct uc_shared_obj *o;
		int rfd, fd;
		unsigned id;

		if (sscanf(tok, "%63[^=]=%d/%u", name, &rfd, &id) != 3)
			goto fail;
		fd = syscall(SYS_pidfd_getfd, pidfd, rfd, 0);
		if (fd < 0)
			goto fail;
		if (obj_id(fd) != id) {
			close(fd);
			goto fail;
		}
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		o = next_obj(sh);
		snprintf(o->name, sizeof(o->name), "%s", name);
		o->fd = fd;
		o->id = id;
	}
	close(pidfd);
	return sh->nobjs ? 0 : -1;
fail:
	close(pidfd);
	for (int i = 0; i < sh->nobjs; i++)
		close(sh->objs[i].fd);
	sh->nobjs = 0;
	sh->holder = 0;
	return -1;
}

int shared_join(struct uc_shared *sh)
{
	char *line = NULL;	/* a holder's line grows with its programs */
	size_t cap = 0;
	FILE *f;

	if (sh->lock_fd < 0)
		return -1;
	f = fopen(sh->registry, "re");
	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		int pid = atoi(line);

		if (!take_from(sh, line))
			break;
		/* Not joinable (not a uringcheck any more, a descriptor gone):
		 * dropped from the list when it is next written. */
		if (pid > 0 && pid != getpid() && sh->nstale < 8)
			sh->stale[sh->nstale++] = pid;
	}
	free(line);
	fclose(f);
	return sh->holder ? 0 : -1;
}

/* Rewrites the registry without dead holders and without this process;
 * with it appended if @self. */
static int rewrite(const struct uc_shared *sh, bool self)
{
	char *line = NULL, tmp[160];
	size_t cap = 0;
	FILE *in, *out;

	snprintf(tmp, sizeof(tmp), "%s.new", sh->registry);
	out = fopen(tmp, "we");
	if (!out)
		return -1;
	in = fopen(sh->registry, "re");
	while (in && getline(&line, &cap, in) > 0) {
		int pid = atoi(line);
		bool stale = false;

		for (int i = 0; i < sh->nstale; i++)
			stale |= sh->stale[i] == pid;
		if (pid > 0 && pid != getpid() && !stale &&
		    !(kill(pid, 0) && errno == ESRCH))
			fputs(line, out);
	}
	free(line);
	if (in)
		fclose(in);
	if (self) {
		fprintf(out, "%d", getpid());
		for (int i = 0; i < sh->nobjs; i++)
			fprintf(out, " %s=%d/%u", sh->objs[i].name, sh->objs[i].fd,
				sh->objs[i].id);
		fputc('\n', out);
	}
	if (fclose(out) || rename(tmp, sh->registry)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

int shared_register(const struct uc_shared *sh)
{
	return sh->lock_fd < 0 ? -1 : rewrite(sh, true);
}

void shared_unregister(const struct uc_shared *sh)
{
	if (sh->lock_fd >= 0)
		rewrite(sh, false);
}
