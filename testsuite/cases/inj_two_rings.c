/* uringcheck-test: expect=overlap */
/*
 * Two rings in one process. A READ on ring 1 and a READ on ring 2, each from
 * its own empty pipe, both into the same buf. Both are in flight together:
 * overlap (the hazard is per process, not per ring).
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
	const int want1[1] = { 100 }, want2[1] = { 200 };
	struct io_uring_sqe *sqe;
	struct io_uring r1, r2;
	int a[2], b[2];

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &r1, 0));
	URING(io_uring_queue_init(8, &r2, 0));

	sqe = get_sqe(&r1);
	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	submit_exact(&r1, 1);
	sqe = get_sqe(&r2);
	io_uring_prep_read(sqe, b[0], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	submit_exact(&r2, 1);
	require_no_cqe(&r1, "ring 1 READ submitted");
	require_no_cqe(&r2, "ring 2 READ submitted");

	feed(a[1], 100, 1);
	feed(b[1], 200, 2);
	reap(&r1, want1, 1);
	reap(&r2, want2, 1);

	io_uring_queue_exit(&r1);
	io_uring_queue_exit(&r2);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 0;
}
