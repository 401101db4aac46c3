/* uringcheck-test: expect=bufreg-lifetime */
/*
 * One registered buffer (index 0). A READ_FIXED on index 0 from an empty
 * pipe is in flight when io_uring_unregister_buffers() drops the whole
 * table. On 6.18 the unregister succeeds at once (the in-flight request
 * keeps its own reference and the old pages stay pinned), so nothing fails
 * visibly: bufreg-lifetime. The pipe is then written, the READ completes
 * into the old pages (buf) and is reaped.
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
	io_uring_prep_read_fixed(sqe, a[0], buf, sizeof(buf), 0, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ_FIXED submitted");

	URING(io_uring_unregister_buffers(&ring));	/* index 0 still in use */
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
