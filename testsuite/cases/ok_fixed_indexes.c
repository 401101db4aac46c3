/* uringcheck-test: expect=clean */
/*
 * Two registered buffers (index 0 and index 1, disjoint memory). READ_FIXED
 * into index 0 and READ_FIXED into index 1, each from its own empty pipe,
 * in flight together: different memory, no hazard.
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

static char mem[3 * 4096] __attribute__((aligned(4096)));

int main(void)
{
	const int want[2] = { 100, 200 };
	char *b0 = mem, *b1 = mem + 2 * 4096;
	struct iovec reg[2] = {
		{ .iov_base = b0, .iov_len = 4096 },
		{ .iov_base = b1, .iov_len = 4096 },
	};
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2], b[2];

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &ring, 0));
	URING(io_uring_register_buffers(&ring, reg, 2));

	sqe = get_sqe(&ring);
	io_uring_prep_read_fixed(sqe, a[0], b0, 4096, 0, 0);
	sqe->user_data = 0;
	sqe = get_sqe(&ring);
	io_uring_prep_read_fixed(sqe, b[0], b1, 4096, 0, 1);
	sqe->user_data = 1;
	submit_exact(&ring, 2);
	require_no_cqe(&ring, "both READ_FIXED submitted");

	feed(a[1], 100, 1);
	feed(b[1], 200, 2);
	reap(&ring, want, 2);

	URING(io_uring_unregister_buffers(&ring));
	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 0;
}
