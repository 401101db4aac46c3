/* uringcheck-test: expect=clean */
/*
 * Three READs from one empty pipe into three distinct buffers are in flight.
 * READ 0 is cancelled by user_data (io_uring_prep_cancel64), then the rest
 * with IORING_ASYNC_CANCEL_ANY | IORING_ASYNC_CANCEL_ALL. Every CQE is
 * reaped, including the three -ECANCELED ones and the two cancel results
 * (0, then 2 = number cancelled), before io_uring_queue_exit(): nothing is
 * dropped or left unreaped.
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

static char bufs[3][4096] __attribute__((aligned(4096)));

/* Reap n CQEs whose user_data must be exactly ids[0..n), each with want[i]. */
static void reap_ids(struct io_uring *ring, const uint64_t *ids, const int *want, unsigned n)
{
	unsigned char seen[8] = { 0 };

	for (unsigned k = 0; k < n; k++) {
		struct cqe_copy c = wait_one(ring);
		unsigned i;

		for (i = 0; i < n && ids[i] != c.user_data; i++)
			;
		if (i == n || seen[i]++)
			fail("unexpected completion user_data=%llu res=%d",
			     (unsigned long long)c.user_data, c.res);
		if (c.res != want[i])
			fail("request %llu: res=%d, expected %d",
			     (unsigned long long)c.user_data, c.res, want[i]);
	}
	if (io_uring_cq_ready(ring))
		fail("more completions than expected");
}

int main(void)
{
	const uint64_t ids1[2] = { 0, 100 }, ids2[3] = { 1, 2, 101 };
	const int want1[2] = { -ECANCELED, 0 }, want2[3] = { -ECANCELED, -ECANCELED, 2 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));

	for (int i = 0; i < 3; i++) {
		sqe = get_sqe(&ring);
		io_uring_prep_read(sqe, a[0], bufs[i], sizeof(bufs[i]), 0);
		sqe->user_data = i;
	}
	submit_exact(&ring, 3);
	require_no_cqe(&ring, "3 READs submitted");

	sqe = get_sqe(&ring);
	io_uring_prep_cancel64(sqe, 0, 0);
	sqe->user_data = 100;
	submit_exact(&ring, 1);
	reap_ids(&ring, ids1, want1, 2);

	sqe = get_sqe(&ring);
	io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY | IORING_ASYNC_CANCEL_ALL);
	sqe->user_data = 101;
	submit_exact(&ring, 1);
	reap_ids(&ring, ids2, want2, 3);

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
