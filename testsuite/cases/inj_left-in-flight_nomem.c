/* uringcheck-test: expect=left-in-flight match="left-in-flight: 3 requests still in flight when the process exited [(]status 0[)] [(]POLL_ADD x2, TIMEOUT x1[)]$" */
/*
 * Requests that hold no user memory (two POLL_ADDs, a TIMEOUT) are in
 * flight at exit: they are counted in one line, not listed with stacks.
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
#include <poll.h>

int main(void)
{
	struct __kernel_timespec ts = { .tv_sec = 60 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	sqe = get_sqe(&ring);
	io_uring_prep_poll_add(sqe, a[0], POLLIN);
	sqe = get_sqe(&ring);
	io_uring_prep_poll_add(sqe, a[0], POLLIN);
	sqe = get_sqe(&ring);
	io_uring_prep_timeout(sqe, &ts, 0, 0);
	submit_exact(&ring, 3);
	require_no_cqe(&ring, "polls and timeout submitted");
	return 0;
}
