// SPDX-License-Identifier: GPL-2.0
/*
 * A parent that never uses io_uring, and its child, forked at once (so
 * before any attach to the parent), as fio's jobs are: the child waits
 * ARGV[1] ms, then makes a ring and submits two READs into one buffer
 * (an overlap) and reaps them. The parent waits for it; exit 0.
 */
#include "../cases/uc_test.h"

#include <sys/wait.h>

static char buf[4096];

static void child(int ms)
{
	const int want[2] = { 100, 200 };	/* by user_data */
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2], b[2];

	usleep(ms * 1000);
	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &ring, 0));
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, b[0], buf, sizeof(buf), 0);
	sqe->user_data = 1;
	submit_exact(&ring, 2);
	feed(a[1], 100, 1);
	feed(b[1], 200, 2);
	reap(&ring, want, 2);
	io_uring_queue_exit(&ring);
}

int main(int argc, char **argv)
{
	int ms = argc > 1 ? atoi(argv[1]) : 1000, status;
	pid_t pid = SYS(fork());

	if (pid == 0) {
		child(ms);
		return 0;
	}
	SYS(waitpid(pid, &status, 0));
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
