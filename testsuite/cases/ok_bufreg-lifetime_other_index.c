/* uringcheck-test: expect=clean */
/*
 * Two registered buffers, buf0 (index 0) and buf1 (index 1). A READ_FIXED on
 * index 0 from an empty pipe is in flight while index 1 (not in use) is
 * replaced by other[] with IORING_REGISTER_BUFFERS_UPDATE. Only a DIFFERENT
 * index changed: no hazard. After the READ is reaped, a READ_FIXED on the
 * new index 1 reads into other[].
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
	const int want[1] = { 100 }, want2[1] = { 200 };
	struct iovec iov[2] = {
		{ .iov_base = buf0, .iov_len = sizeof(buf0) },
		{ .iov_base = buf1, .iov_len = sizeof(buf1) },
	};
	struct iovec repl = { .iov_base = other, .iov_len = sizeof(other) };
	__u64 tag = 0;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	char expect[200];
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	URING(io_uring_register_buffers(&ring, iov, 2));

	sqe = get_sqe(&ring);
	io_uring_prep_read_fixed(sqe, a[0], buf0, sizeof(buf0), 0, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ_FIXED on index 0 submitted");

	if (URING(io_uring_register_buffers_update_tag(&ring, 1, &repl, &tag, 1)) != 1)
		fail("update of index 1 did not replace 1 buffer");
	require_no_cqe(&ring, "index 1 replaced");

	feed(a[1], 100, 1);
	reap(&ring, want, 1);
	pattern(expect, 100, 1);
	if (memcmp(buf0, expect, 100))
		fail("READ_FIXED did not land in buf0");

	sqe = get_sqe(&ring);
	io_uring_prep_read_fixed(sqe, a[0], other, sizeof(other), 0, 1);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	feed(a[1], 200, 2);
	reap(&ring, want2, 1);
	pattern(expect, 200, 2);
	if (memcmp(other, expect, 200))
		fail("READ_FIXED on the new index 1 did not land in other[]");

	URING(io_uring_unregister_buffers(&ring));
	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
