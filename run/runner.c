// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <nss.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xalloc.h"

int run_as_from_env(struct uc_run_as *ra, bool keep_root)
{
	const char *suid = getenv("SUDO_UID"), *sgid = getenv("SUDO_GID");
	struct passwd *pw;
	char *end;
	int n = 0;

	memset(ra, 0, sizeof(*ra));
	if (getuid() != 0 || !suid || !sgid)
		return 0;
	ra->uid = strtoul(suid, &end, 10);
	if (*end || !*suid)
		goto bad;
	ra->gid = strtoul(sgid, &end, 10);
	if (*end || !*sgid)
		goto bad;
	if (ra->uid == 0)
		return 0;	/* sudo from root: nothing to drop */
#ifdef UC_STATIC
	/* A static glibc program reaches NSS modules other than files
	 * (systemd, sss, ldap) only by loading them, which it must not
	 * (static/no_dlopen.c): the files, always. A user they do not
	 * name keeps SUDO_GID as the only group, as below. */
	__nss_configure_lookup("passwd", "files");
	__nss_configure_lookup("group", "files");
#endif
	pw = getpwuid(ra->uid);
	if (pw) {
		ra->user = xstrdup(pw->pw_name);
		ra->home = xstrdup(pw->pw_dir);
		/* Looked up here, in the parent: the child only applies it. */
		getgrouplist(pw->pw_name, ra->gid, NULL, &n);
		ra->groups = xcalloc(n + 1, sizeof(gid_t));
		if (getgrouplist(pw->pw_name, ra->gid, ra->groups, &n) < 0)
			n = 0;
	} else {
		ra->groups = xcalloc(1, sizeof(gid_t));
		ra->groups[n++] = ra->gid;
	}
	ra->ngroups = n;
	ra->sudo = true;
	ra->drop = !keep_root;
	return 0;
bad:
	fprintf(stderr, "uringcheck: SUDO_UID/SUDO_GID are not numbers\n");
	return -1;
}

void run_as_free(struct uc_run_as *ra)
{
	free(ra->groups);
	free(ra->user);
	free(ra->home);
	memset(ra, 0, sizeof(*ra));
}

/* SIGPIPE as uringcheck was started with: the target gets it back. */
static struct sigaction sigpipe_given;
static bool sigpipe_saved;

void runner_ignore_sigpipe(void)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };

	sigpipe_saved = !sigaction(SIGPIPE, &ign, &sigpipe_given);
}

static void child_fail(int fd, int err)
{
	ssize_t unused = write(fd, &err, sizeof(err));

	(void)unused;
	_exit(127);
}

static void child(int go_rd, int exec_wr, char **argv, const struct uc_run_as *ra,
		  const sigset_t *mask, pid_t parent)
{
	char c;

	/* Let the parent put us in the process table before we exec. */
	if (read(go_rd, &c, 1) != 1)
		_exit(127);	/* the parent died: do not run unwatched */
	close(go_rd);

	if (ra->drop) {
		if (setgroups(ra->ngroups, ra->groups) || setgid(ra->gid) ||
		    setuid(ra->uid))
			child_fail(exec_wr, errno);
		if (ra->home)
			setenv("HOME", ra->home, 1);
		if (ra->user) {
			setenv("USER", ra->user, 1);
			setenv("LOGNAME", ra->user, 1);
		}
	}
	/*
	 * If uringcheck dies (SIGKILL, the OOM killer), nothing watches the
	 * target any more and its run could pass as clean: it is killed too.
	 * Set after the identity change, which would clear it, and followed by
	 * a check that the parent did not die just before.
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		child_fail(exec_wr, ECHILD);
	if (sigpipe_saved)
		sigaction(SIGPIPE, &sigpipe_given, NULL);
	sigprocmask(SIG_SETMASK, mask, NULL);
	execvp(argv[0], argv);
	child_fail(exec_wr, errno);
}

int target_spawn(struct uc_target *t, char **argv, const struct uc_run_as *ra,
		 const sigset_t *saved_mask)
{
	int go[2], ex[2];
	pid_t parent = getpid();

	memset(t, 0, sizeof(*t));
	t->pidfd = -1;
	if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC)) {
		fprintf(stderr, "uringcheck: pipe: %s\n", strerror(errno));
		return -1;
	}
	t->pid = fork();
	if (t->pid < 0) {
		fprintf(stderr, "uringcheck: fork: %s\n", strerror(errno));
		return -1;
	}
	if (t->pid == 0) {
		close(go[1]);
		close(ex[0]);
		child(go[0], ex[1], argv, ra, saved_mask, parent);
	}
	close(go[0]);
	close(ex[1]);
	t->go_fd = go[1];
	t->exec_fd = ex[0];
	t->pidfd = syscall(SYS_pidfd_open, t->pid, 0);
	if (t->pidfd < 0) {
		fprintf(stderr, "uringcheck: pidfd_open: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

int target_release(struct uc_target *t)
{
	int err = 0;
	ssize_t n;

	if (write(t->go_fd, "g", 1) != 1)
		return errno;
	close(t->go_fd);
	t->go_fd = -1;
	do {
		n = read(t->exec_fd, &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close(t->exec_fd);
	t->exec_fd = -1;
	return n == sizeof(err) ? err : 0;
}

void target_abandon(struct uc_target *t)
{
	/* Never released: it is still waiting to exec, and dies unrun. */
	kill(t->pid, SIGKILL);
	if (t->go_fd >= 0)
		close(t->go_fd);
	if (t->exec_fd >= 0)
		close(t->exec_fd);
	t->go_fd = t->exec_fd = -1;
	target_reap(t);
}

int target_reap(struct uc_target *t)
{
	int status;

	while (waitpid(t->pid, &status, 0) < 0) {
		if (errno != EINTR)
			return 127;
	}
	close(t->pidfd);
	t->pidfd = -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 127;
}
