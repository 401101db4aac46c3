/* uringcheck-test: expect=user-data-reuse match="in submit_poll testsuite/cases/inj_user-data-reuse_sqpoll.c:[0-9]+" */
/*
 * SQPOLL ring: two POLL_ADDs (they hold no user memory) on two empty
 * pipes, both with user_data = &ctx. The SQPOLL thread submits them; the
 * report must still carry the stack of the io_uring_submit call in
 * submit_poll() that published each: the probe skips the stack copy only
 * for calls whose SQEs can need none, and a pointer-like user_data can
 * (bpf/sqpoll_stacks.bpf.h). The case waits for the probe (uc_test.h).
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

static void __attribute__((noinline)) submit_poll(struct io_uring *ring, int fd)
{
	struct io_uring_sqe *sqe = get_sqe(ring);

	io_uring_prep_poll_add(sqe, fd, POLLIN);
	io_uring_sqe_set_data(sqe, &ctx);
	submit_exact(ring, 1);
	for (int i = 0; io_uring_sq_ready(ring); i++) {
		if (i >= 2000)
			fail("SQ thread did not consume the SQE within 2 s");
		usleep(1000);
	}
}

int main(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SQPOLL, .sq_thread_idle = 2000 };
	struct io_uring ring;
	int a[2], b[2];

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init_params(8, &ring, &p));
	wait_submit_probed();

	submit_poll(&ring, a[0]);
	usleep(20 * 1000);
	require_no_cqe(&ring, "the first POLL_ADD waits");
	submit_poll(&ring, b[0]);		/* the same context: the bug */

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
