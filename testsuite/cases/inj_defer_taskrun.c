/* uringcheck-test: expect=overlap */
/*
 * IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN ring (completions
 * are only posted when the task waits for them). Two READs from two empty
 * pipes into the same buffer, in flight together: overlap.
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
	const int want[2] = { 100, 96 };
	struct io_uring_params p = {
		.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
	};
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2], b[2];

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init_params(8, &ring, &p));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, b[0], buf + 4000, 96, 0);
	sqe->user_data = 1;
	submit_exact(&ring, 2);
	URING(io_uring_get_events(&ring));	/* run deferred task work, if any */
	require_no_cqe(&ring, "both READs submitted");

	feed(a[1], 100, 1);
	feed(b[1], 96, 2);
	reap(&ring, want, 2);

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 0;
}
