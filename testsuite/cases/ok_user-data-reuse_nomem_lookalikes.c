/* uringcheck-test: expect=clean */
/*
 * Requests without memory sharing a user_data legally:
 *  - a POLL_ADD with user_data = &ctx, and a POLL_REMOVE of it that also
 *    carries &ctx (the cancel family names its target's context);
 *  - a NOP with &ctx submitted after the first request's CQE;
 *  - a POLL_ADD and its LINK_TIMEOUT sharing &ctx2 (one operation);
 *  - NOPs sharing the small tag 7, and NOPs sharing &ctx3 with
 *    IOSQE_CQE_SKIP_SUCCESS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "uc_test.h"

/* ---- end of common helpers ---- */

static struct { long a, b; } ctx, ctx2, ctx3;

static void drain(struct io_uring *ring, int n)
{
	for (int i = 0; i < n; i++)
		(void)wait_one(ring);
}

int main(void)
{
	struct __kernel_timespec ts = { .tv_sec = 5 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(16, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_poll_add(sqe, a[0], POLLIN);
	io_uring_sqe_set_data(sqe, &ctx);
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "the POLL_ADD waits");
	sqe = get_sqe(&ring);
	io_uring_prep_poll_remove(sqe, (__u64)(uintptr_t)&ctx);
	io_uring_sqe_set_data(sqe, &ctx);
	submit_exact(&ring, 1);
	drain(&ring, 2);

	sqe = get_sqe(&ring);
	io_uring_prep_nop(sqe);
	io_uring_sqe_set_data(sqe, &ctx);	/* after the first one's CQE */
	submit_exact(&ring, 1);
	drain(&ring, 1);

	sqe = get_sqe(&ring);
	io_uring_prep_poll_add(sqe, a[0], POLLIN);
	io_uring_sqe_set_data(sqe, &ctx2);
	sqe->flags |= IOSQE_IO_LINK;
	sqe = get_sqe(&ring);
	io_uring_prep_link_timeout(sqe, &ts, 0);
	io_uring_sqe_set_data(sqe, &ctx2);
	submit_exact(&ring, 2);
	feed(a[1], 1, 1);
	drain(&ring, 2);
	discard(a[0], 1);

	for (int i = 0; i < 4; i++) {
		sqe = get_sqe(&ring);
		io_uring_prep_nop(sqe);
		sqe->user_data = 7;
	}
	for (int i = 0; i < 4; i++) {
		sqe = get_sqe(&ring);
		io_uring_prep_nop(sqe);
		io_uring_sqe_set_data(sqe, &ctx3);
		sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
	}
	submit_exact(&ring, 8);
	drain(&ring, 4);

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
