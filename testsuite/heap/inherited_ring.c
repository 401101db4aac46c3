// SPDX-License-Identifier: GPL-2.0
/*
 * A forked child submits a READ into a malloc() chunk on the ring its
 * parent made (inherited), frees the chunk while the READ is in flight,
 * then lets the READ complete. free-inflight looks for released chunks
 * only among the rings a process made itself: this release is not
 * judged, and the run must say so (testsuite/heap/tests.sh).
 */
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	struct io_uring ring;
	int p[2], st;
	pid_t pid;

	if (io_uring_queue_init(8, &ring, 0) || pipe(p))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		char *buf = malloc(4096);
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct io_uring_cqe *cqe;

		if (!buf || !sqe)
			_exit(1);
		io_uring_prep_read(sqe, p[0], buf, 4096, 0);
		if (io_uring_submit(&ring) != 1)
			_exit(1);
		/* long enough for the checker to have read the submission
		 * (and probed this process) before the free */
		usleep(300000);
		free(buf);
		if (write(p[1], "x", 1) != 1 || io_uring_wait_cqe(&ring, &cqe))
			_exit(1);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 1;
	return WEXITSTATUS(st);
}
