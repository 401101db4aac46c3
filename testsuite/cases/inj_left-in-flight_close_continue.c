/* uringcheck-test: expect=left-in-flight match="^==[0-9]+==uringcheck: 1 finding: left-in-flight 1$" */
/*
 * A READ is in flight when the program closes its ring (io_uring_queue_exit)
 * and carries on, then exits. One report, for the close: the request is not
 * reported again at exit, and its buffer is not touched again.
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
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");
	io_uring_queue_exit(&ring);
	usleep(100 * 1000);
	return 0;
}
