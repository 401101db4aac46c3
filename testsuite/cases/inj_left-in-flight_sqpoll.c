/* uringcheck-test: expect=left-in-flight */
/*
 * IORING_SETUP_SQPOLL ring: a READ from an empty pipe, issued by the kernel
 * SQ thread. We wait until the SQ thread has consumed the SQE plus 50 ms,
 * then io_uring_queue_exit() with the READ still in flight: dropped.
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

static void wait_sq_consumed(struct io_uring *ring)
{
	for (int i = 0; io_uring_sq_ready(ring); i++) {
		if (i >= 2000)
			fail("SQ thread did not consume the SQEs within 2 s");
		usleep(1000);
	}
	usleep(50 * 1000);
}

int main(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SQPOLL, .sq_thread_idle = 2000 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init_params(8, &ring, &p));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	wait_sq_consumed(&ring);
	require_no_cqe(&ring, "READ consumed by the SQ thread");

	io_uring_queue_exit(&ring);	/* READ still in flight */
	close(a[0]); close(a[1]);
	return 0;
}
