/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Starting the target so that it is watched from its first instruction
 * and otherwise runs exactly as it would without uringcheck: same
 * arguments, environment, working directory, descriptors and signal
 * state, and no other process created between its fork and its exec.
 *
 * The child is forked, then blocks on a pipe until the parent has added
 * its PID to the BPF process table; then it execs. A second pipe, closed
 * by a successful exec (O_CLOEXEC), carries errno back if exec fails.
 */
#ifndef UC_RUNNER_H
#define UC_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

/* Under sudo, the invoking user: the identity the target gets (unless
 * --as-root) and the one the user's files are opened with. */
struct uc_run_as {
	bool sudo;			/* real uid 0, SUDO_UID another user */
	bool drop;			/* the target runs as that user */
	uid_t uid;
	gid_t gid;
	gid_t *groups;
	int ngroups;
	char *user, *home;
};

struct uc_target {
	pid_t pid;
	int go_fd;			/* write end: release the child */
	int exec_fd;			/* read end: errno if exec failed */
	int pidfd;			/* readable when the child exits */
	sigset_t saved_mask;		/* the mask the target starts with */
};

/* Works out whether to drop to SUDO_UID/SUDO_GID. Returns -1 with a
 * message if the sudo environment is inconsistent. */
int run_as_from_env(struct uc_run_as *ra, bool keep_root);
void run_as_free(struct uc_run_as *ra);
/* An output whose reader went away is a write error (EPIPE, exit 70),
 * not uringcheck's death; the target starts with SIGPIPE as given. */
void runner_ignore_sigpipe(void);

/* Forks the child, stopped before exec. Signals in @forwarded must be
 * blocked by the caller (they are unblocked in the child). */
int target_spawn(struct uc_target *t, char **argv, const struct uc_run_as *ra,
		 const sigset_t *saved_mask);
/* Lets the child exec. Returns 0, or the errno of the failed exec. */
int target_release(struct uc_target *t);
/* Reaps the child; returns its status as a shell would (128+N for a
 * signal). Call after pidfd became readable. */
int target_reap(struct uc_target *t);
/* Kills a target that was spawned but never released, and reaps it. */
void target_abandon(struct uc_target *t);

#endif
