/* uringcheck-test: expect=overlap */
/*
 * A WRITE from buf into a full pipe (stays in flight until the pipe is
 * drained) and, at the same time, a READ from an empty pipe into the same
 * buf. The READ stores into bytes the WRITE is still loading: overlap
 * (sink vs source).
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

static char buf[4096] __attribute__((aligned(4096)));

int main(void)
{
	const int want[2] = { sizeof(buf), 100 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	size_t filled;
	int full[2], empty[2];

	SYS(pipe(full));
	SYS(pipe(empty));
	filled = fill_pipe(full[1]);
	URING(io_uring_queue_init(8, &ring, 0));

	pattern(buf, sizeof(buf), 7);
	sqe = get_sqe(&ring);
	io_uring_prep_write(sqe, full[1], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, empty[0], buf, sizeof(buf), 0);
	sqe->user_data = 1;
	submit_exact(&ring, 2);
	require_no_cqe(&ring, "WRITE and READ submitted");

	feed(empty[1], 100, 1);		/* completes the READ */
	discard(full[0], filled);	/* makes room: the WRITE completes */
	reap(&ring, want, 2);
	discard(full[0], sizeof(buf));

	io_uring_queue_exit(&ring);
	close(full[0]); close(full[1]); close(empty[0]); close(empty[1]);
	return 0;
}
