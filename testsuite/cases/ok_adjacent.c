/* uringcheck-test: expect=clean */
/*
 * Two READs from two empty pipes into [buf, buf+4096) and
 * [buf+4096, buf+8192), in flight together. The ranges touch
 * (end == start) but share no byte: no hazard.
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

static char buf[8192] __attribute__((aligned(4096)));

int main(void)
{
	const int want[2] = { 100, 200 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2], b[2];

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, 4096, 0);
	sqe->user_data = 0;
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, b[0], buf + 4096, 4096, 0);
	sqe->user_data = 1;
	submit_exact(&ring, 2);
	require_no_cqe(&ring, "both READs submitted");

	feed(a[1], 100, 1);
	feed(b[1], 200, 2);
	reap(&ring, want, 2);

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 0;
}
