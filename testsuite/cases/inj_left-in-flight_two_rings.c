/* uringcheck-test: expect=left-in-flight */
/*
 * Two rings, each with a READ from its own empty pipe into its own buffer.
 * Ring 1's pipe is written and its CQE reaped; ring 2's READ is still in
 * flight when both rings are torn down with io_uring_queue_exit(): only
 * ring 2 drops a request.
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

static char buf1[4096] __attribute__((aligned(4096)));
static char buf2[4096] __attribute__((aligned(4096)));

int main(void)
{
	const int want1[1] = { 100 };
	struct io_uring_sqe *sqe;
	struct io_uring r1, r2;
	int a[2], b[2];

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &r1, 0));
	URING(io_uring_queue_init(8, &r2, 0));

	sqe = get_sqe(&r1);
	io_uring_prep_read(sqe, a[0], buf1, sizeof(buf1), 0);
	sqe->user_data = 0;
	submit_exact(&r1, 1);
	sqe = get_sqe(&r2);
	io_uring_prep_read(sqe, b[0], buf2, sizeof(buf2), 0);
	sqe->user_data = 0;
	submit_exact(&r2, 1);
	require_no_cqe(&r1, "ring 1 READ submitted");
	require_no_cqe(&r2, "ring 2 READ submitted");

	feed(a[1], 100, 1);
	reap(&r1, want1, 1);
	require_no_cqe(&r2, "ring 1 READ reaped");

	io_uring_queue_exit(&r1);	/* clean */
	io_uring_queue_exit(&r2);	/* READ still in flight */
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 0;
}
