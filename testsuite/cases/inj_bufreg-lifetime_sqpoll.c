/* uringcheck-test: expect=bufreg-lifetime */
/*
 * IORING_SETUP_SQPOLL ring: the READ_FIXED is issued by the kernel SQ thread,
 * not by this task. One registered buffer (index 0); a READ_FIXED on index 0
 * from an empty pipe. We wait until the SQ thread has consumed the SQE (SQ
 * head advanced) plus 50 ms, then unregister the buffers while the request
 * is in flight: bufreg-lifetime.
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
	const int want[1] = { 100 };
	struct io_uring_params p = { .flags = IORING_SETUP_SQPOLL, .sq_thread_idle = 2000 };
	struct iovec reg = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	char expect[100];
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init_params(8, &ring, &p));
	URING(io_uring_register_buffers(&ring, &reg, 1));

	sqe = get_sqe(&ring);
	io_uring_prep_read_fixed(sqe, a[0], buf, sizeof(buf), 0, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	wait_sq_consumed(&ring);
	require_no_cqe(&ring, "READ_FIXED consumed by the SQ thread");

	URING(io_uring_unregister_buffers(&ring));
	require_no_cqe(&ring, "buffers unregistered");

	feed(a[1], 100, 1);
	reap(&ring, want, 1);
	pattern(expect, sizeof(expect), 1);
	if (memcmp(buf, expect, sizeof(expect)))
		fail("READ_FIXED did not land in the old buffer");

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
