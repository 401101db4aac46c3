/* uringcheck-test: expect=bufreg-lifetime */
/*
 * A sparse 2-slot buffer table (io_uring_register_buffers_sparse), filled
 * with buf0 (index 0) and buf1 (index 1) by IORING_REGISTER_BUFFERS_UPDATE.
 * A READ_FIXED on index 1 from an empty pipe is in flight when index 1 is
 * replaced by other[] (io_uring_register_buffers_update_tag, tag 0 so the
 * kernel posts no tag CQE). The update succeeds; the READ still completes
 * into the old buf1: bufreg-lifetime. Index 0 is not in use.
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
	const int want[1] = { 100 };
	struct iovec iov[2] = {
		{ .iov_base = buf0, .iov_len = sizeof(buf0) },
		{ .iov_base = buf1, .iov_len = sizeof(buf1) },
	};
	struct iovec repl = { .iov_base = other, .iov_len = sizeof(other) };
	__u64 tags[2] = { 0, 0 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	char expect[100];
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	URING(io_uring_register_buffers_sparse(&ring, 2));
	if (URING(io_uring_register_buffers_update_tag(&ring, 0, iov, tags, 2)) != 2)
		fail("initial update did not install 2 buffers");

	sqe = get_sqe(&ring);
	io_uring_prep_read_fixed(sqe, a[0], buf1, sizeof(buf1), 0, 1);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ_FIXED on index 1 submitted");

	/* replace index 1 while the READ_FIXED above still uses it */
	if (URING(io_uring_register_buffers_update_tag(&ring, 1, &repl, tags, 1)) != 1)
		fail("update of index 1 did not replace 1 buffer");
	require_no_cqe(&ring, "index 1 replaced");

	feed(a[1], 100, 1);
	reap(&ring, want, 1);
	pattern(expect, sizeof(expect), 1);
	if (memcmp(buf1, expect, sizeof(expect)))
		fail("READ_FIXED did not land in the old buf1");

	URING(io_uring_unregister_buffers(&ring));
	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
