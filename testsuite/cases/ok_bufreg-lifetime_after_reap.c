/* uringcheck-test: expect=clean */
/*
 * Two registered buffers. READ_FIXED on index 0 and on index 1, each from
 * its own empty pipe, are in flight together; both pipes are written and
 * both CQEs reaped. Only then is index 1 replaced (buffers update) and the
 * whole table unregistered: every user of both indexes has completed, so no
 * hazard.
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

static char buf0[4096] __attribute__((aligned(4096)));
static char buf1[4096] __attribute__((aligned(4096)));
static char other[4096] __attribute__((aligned(4096)));

int main(void)
{
	const int want[2] = { 100, 200 };
	struct iovec iov[2] = {
		{ .iov_base = buf0, .iov_len = sizeof(buf0) },
		{ .iov_base = buf1, .iov_len = sizeof(buf1) },
	};
	struct iovec repl = { .iov_base = other, .iov_len = sizeof(other) };
	__u64 tag = 0;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2], b[2];

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &ring, 0));
	URING(io_uring_register_buffers(&ring, iov, 2));

	sqe = get_sqe(&ring);
	io_uring_prep_read_fixed(sqe, a[0], buf0, sizeof(buf0), 0, 0);
	sqe->user_data = 0;
	sqe = get_sqe(&ring);
	io_uring_prep_read_fixed(sqe, b[0], buf1, sizeof(buf1), 0, 1);
	sqe->user_data = 1;
	submit_exact(&ring, 2);
	require_no_cqe(&ring, "both READ_FIXED submitted");

	feed(a[1], 100, 1);
	feed(b[1], 200, 2);
	reap(&ring, want, 2);

	if (URING(io_uring_register_buffers_update_tag(&ring, 1, &repl, &tag, 1)) != 1)
		fail("update of index 1 did not replace 1 buffer");
	URING(io_uring_unregister_buffers(&ring));

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 0;
}
