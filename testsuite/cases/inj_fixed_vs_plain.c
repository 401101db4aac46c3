/* uringcheck-test: expect=overlap */
/*
 * buf is registered as fixed buffer 0. A READ_FIXED into [buf, buf+4096)
 * and a plain READ into [buf+512, buf+1024), each from its own empty pipe,
 * are in flight together: overlap between a fixed-buffer and a plain
 * request on the same memory.
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
	struct iovec reg = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2], b[2];

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &ring, 0));
	URING(io_uring_register_buffers(&ring, &reg, 1));

	sqe = get_sqe(&ring);
	io_uring_prep_read_fixed(sqe, a[0], buf, sizeof(buf), 0, 0);
	sqe->user_data = 0;
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, b[0], buf + 512, 512, 0);
	sqe->user_data = 1;
	submit_exact(&ring, 2);
	require_no_cqe(&ring, "READ_FIXED and READ submitted");

	feed(a[1], 100, 1);
	feed(b[1], 200, 2);
	reap(&ring, want, 2);

	URING(io_uring_unregister_buffers(&ring));
	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 0;
}
