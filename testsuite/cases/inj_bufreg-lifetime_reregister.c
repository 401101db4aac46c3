/* uringcheck-test: expect=bufreg-lifetime */
/*
 * Replacement by unregister + re-register: a READ_FIXED on index 0 (buf)
 * from an empty pipe is in flight when the table is unregistered and a new
 * table whose index 0 is other[] is registered. Both syscalls succeed; the
 * READ completes into the old buf while index 0 now names other[]:
 * bufreg-lifetime.
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
static char other[4096] __attribute__((aligned(4096)));

int main(void)
{
	const int want[1] = { 100 };
	struct iovec reg = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct iovec reg2 = { .iov_base = other, .iov_len = sizeof(other) };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	char expect[100];
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	URING(io_uring_register_buffers(&ring, &reg, 1));

	sqe = get_sqe(&ring);
	io_uring_prep_read_fixed(sqe, a[0], buf, sizeof(buf), 0, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ_FIXED submitted");

	URING(io_uring_unregister_buffers(&ring));
	URING(io_uring_register_buffers(&ring, &reg2, 1));
	require_no_cqe(&ring, "buffers re-registered");

	feed(a[1], 100, 1);
	reap(&ring, want, 1);
	pattern(expect, sizeof(expect), 1);
	if (memcmp(buf, expect, sizeof(expect)))
		fail("READ_FIXED did not land in the old buffer");

	URING(io_uring_unregister_buffers(&ring));
	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
