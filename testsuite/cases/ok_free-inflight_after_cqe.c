/* uringcheck-test: expect=clean */
/*
 * Look-alike of inj_free-inflight_malloc: the READ into chunk A has
 * completed (its CQE is posted) when A is freed, before the program
 * consumes the CQE: the kernel is done with A, so that is fine. A second
 * READ into chunk B stays in flight meanwhile, so the free is judged,
 * not skipped because nothing was in flight.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "uc_test.h"

/* ---- end of common helpers ---- */

int main(void)
{
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	char *a_buf, *b_buf;
	int a[2], b[2];

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &ring, 0));
	a_buf = malloc(4096);
	b_buf = malloc(4096);
	if (!a_buf || !b_buf)
		fail("malloc");

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], a_buf, 4096, 0);
	sqe->user_data = 1;
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, b[0], b_buf, 4096, 0);
	sqe->user_data = 2;
	submit_exact(&ring, 2);
	require_no_cqe(&ring, "READs submitted");

	feed(a[1], 100, 1);
	URING(io_uring_wait_cqe(&ring, &cqe));
	if (cqe->user_data != 1 || cqe->res != 100)
		fail("READ A: user_data=%llu res=%d", (unsigned long long)cqe->user_data,
		     cqe->res);
	free(a_buf);			/* completed, CQE not consumed yet */
	io_uring_cqe_seen(&ring, cqe);

	feed(b[1], 100, 2);
	c = wait_one(&ring);
	if (c.user_data != 2 || c.res != 100)
		fail("READ B: user_data=%llu res=%d", (unsigned long long)c.user_data, c.res);
	free(b_buf);

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 0;
}
