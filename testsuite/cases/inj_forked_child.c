/* uringcheck-test: expect=overlap */
/*
 * The process forks. The CHILD creates its own ring and submits two READs
 * from two empty pipes into the same buffer: overlap inside the child
 * process (the checker must follow forked children). The parent uses no
 * io_uring; it waits for the child and exits 0 iff the child exited 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "uc_test.h"

/* ---- end of common helpers ---- */
#include <sys/wait.h>

static char buf[4096] __attribute__((aligned(4096)));

static void child(void)
{
	const int want[2] = { 100, 200 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2], b[2];

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, b[0], buf + 2048, 2048, 0);
	sqe->user_data = 1;
	submit_exact(&ring, 2);
	require_no_cqe(&ring, "child: both READs submitted");

	feed(a[1], 100, 1);
	feed(b[1], 200, 2);
	reap(&ring, want, 2);

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
}

int main(void)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = SYS(fork());
	if (pid == 0) {
		child();
		_exit(0);
	}
	SYS(waitpid(pid, &status, 0));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail("child failed (status 0x%x)", status);
	return 0;
}
