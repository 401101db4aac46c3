/* uringcheck-test: expect=clean */
/*
 * buf is registered as index 0, but the in-flight request is a plain READ
 * (not READ_FIXED) from an empty pipe into buf: it does not use the buffer
 * table. Unregistering the buffers while it is in flight is harmless (the
 * READ copies into buf through the normal user mapping): no hazard.
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
	const int want[1] = { 100 };
	struct iovec reg = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	char expect[100];
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	URING(io_uring_register_buffers(&ring, &reg, 1));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "plain READ submitted");

	URING(io_uring_unregister_buffers(&ring));

	feed(a[1], 100, 1);
	reap(&ring, want, 1);
	pattern(expect, sizeof(expect), 1);
	if (memcmp(buf, expect, sizeof(expect)))
		fail("READ did not land in buf");

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
