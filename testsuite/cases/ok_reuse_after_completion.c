/* uringcheck-test: expect=clean */
/*
 * READ #1 into buf completes; we wait until its CQE is in the CQ ring
 * (io_uring_wait_cqe) but do NOT mark it seen yet, then submit READ #2 into
 * the same buf. The kernel already posted READ #1's completion, so it is no
 * longer in flight even though the application has not reaped it: no
 * hazard.
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
	const int want[2] = { 100, 200 };
	struct __kernel_timespec ts = { .tv_sec = 5 };
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2], b[2];

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	feed(a[1], 100, 1);
	URING(io_uring_wait_cqe_timeout(&ring, &cqe, &ts));
	if (cqe->user_data != 0 || cqe->res != 100)
		fail("READ #1: res=%d", cqe->res);
	/* deliberately not io_uring_cqe_seen() yet */

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, b[0], buf, sizeof(buf), 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	if (io_uring_cq_ready(&ring) != 1)
		fail("expected exactly READ #1's CQE to be pending");

	feed(b[1], 200, 2);
	reap(&ring, want, 2);	/* READ #1's CQE first, then READ #2's */

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 0;
}
