/* uringcheck-test: expect=clean */
/*
 * Two READs with IOSQE_BUFFER_SELECT (no address at submit time) from two
 * empty pipes, in flight together. The kernel picks a distinct provided
 * buffer from group 7 for each when data arrives, so the requests have no
 * range at submit and never share memory: no hazard. The PROVIDE_BUFFERS
 * request itself (addr = the pool) must not count as a sink either.
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

#define BGID 7
#define BSZ 4096
static char pool[2 * BSZ] __attribute__((aligned(4096)));

int main(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	int a[2], b[2], bid_seen[2] = { 0, 0 };

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_provide_buffers(sqe, pool, BSZ, 2, BGID, 0);
	sqe->user_data = 9;
	submit_exact(&ring, 1);
	c = wait_one(&ring);
	if (c.user_data != 9 || c.res != 0)
		fail("PROVIDE_BUFFERS: res=%d", c.res);

	for (int i = 0; i < 2; i++) {
		sqe = get_sqe(&ring);
		io_uring_prep_read(sqe, i ? b[0] : a[0], NULL, BSZ, 0);
		sqe->flags |= IOSQE_BUFFER_SELECT;
		sqe->buf_group = BGID;
		sqe->user_data = i;
	}
	submit_exact(&ring, 2);
	require_no_cqe(&ring, "both buffer-select READs submitted");

	feed(a[1], 100, 1);
	feed(b[1], 200, 2);
	for (int i = 0; i < 2; i++) {
		unsigned bid;

		c = wait_one(&ring);
		if (c.user_data > 1 || c.res != (c.user_data ? 200 : 100) ||
		    !(c.flags & IORING_CQE_F_BUFFER))
			fail("READ %llu: res=%d flags=0x%x", (unsigned long long)c.user_data,
			     c.res, c.flags);
		bid = c.flags >> IORING_CQE_BUFFER_SHIFT;
		if (bid > 1 || bid_seen[bid]++)
			fail("unexpected buffer id %u", bid);
	}

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 0;
}
