/* uringcheck-test: expect=overlap match="liburing calls published other SQEs of this ring" */
/*
 * SQPOLL ring, stacks kept sound: the first READ is published by
 * io_uring_submit (it has that call's stack), the second is published by
 * the program storing the SQ tail itself, as a program without liburing
 * does (no call published it: it must get no stack, not the first one's,
 * and the report says why). Both into one buffer: overlap.
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

static void wait_consumed(struct io_uring *ring)
{
	for (int i = 0; io_uring_sq_ready(ring); i++) {
		if (i >= 2000)
			fail("SQ thread did not consume the SQEs within 2 s");
		usleep(1000);
	}
}

int main(void)
{
	const int want[2] = { 100, 200 };
	struct io_uring_params p = { .flags = IORING_SETUP_SQPOLL, .sq_thread_idle = 2000 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2], b[2];

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init_params(8, &ring, &p));
	wait_submit_probed();

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	wait_consumed(&ring);

	/* published by hand: the tail stored without a liburing call (the
	 * SQ thread is awake: sq_thread_idle is 2 s) */
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, b[0], buf + 1024, 1024, 0);
	sqe->user_data = 1;
	ring.sq.sqe_head = ring.sq.sqe_tail;
	io_uring_smp_store_release(ring.sq.ktail, ring.sq.sqe_tail);
	if (IO_URING_READ_ONCE(*ring.sq.kflags) & IORING_SQ_NEED_WAKEUP)
		io_uring_enter(ring.ring_fd, 0, 0, IORING_ENTER_SQ_WAKEUP, NULL);
	wait_consumed(&ring);
	usleep(50 * 1000);
	require_no_cqe(&ring, "both READs consumed by the SQ thread");

	feed(a[1], 100, 1);
	feed(b[1], 200, 2);
	reap(&ring, want, 2);

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 0;
}
