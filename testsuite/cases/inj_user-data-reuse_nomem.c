/* uringcheck-test: expect=user-data-reuse */
/*
 * Two POLL_ADDs (they hold no user memory) on two empty pipes, both with
 * user_data = &ctx, a request context: while the first waits, the second
 * reuses its context. Both completions reach one context.
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

struct request_ctx {
	int fd;
	int events;
};

static struct request_ctx ctx;

int main(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2], b[2];

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_poll_add(sqe, a[0], POLLIN);
	io_uring_sqe_set_data(sqe, &ctx);
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "the first POLL_ADD waits");

	sqe = get_sqe(&ring);
	io_uring_prep_poll_add(sqe, b[0], POLLIN);
	io_uring_sqe_set_data(sqe, &ctx);		/* the bug */
	submit_exact(&ring, 1);

	feed(a[1], 1, 1);
	feed(b[1], 1, 2);
	for (int i = 0; i < 2; i++) {
		struct cqe_copy c = wait_one(&ring);

		if (c.user_data != (uintptr_t)&ctx || !(c.res & POLLIN))
			fail("POLL_ADD: res=%d", c.res);
	}
	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 0;
}
