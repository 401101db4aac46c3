/* uringcheck-test: expect=clean */
/*
 * Two WRITEs from the same buffer into two full pipes. Both stay in flight
 * together until the pipes are drained, but both only load from buf
 * (source/source): no hazard.
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
	const int want[2] = { sizeof(buf), sizeof(buf) };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	size_t fa, fb;
	int a[2], b[2];

	SYS(pipe(a));
	SYS(pipe(b));
	fa = fill_pipe(a[1]);
	fb = fill_pipe(b[1]);
	URING(io_uring_queue_init(8, &ring, 0));

	pattern(buf, sizeof(buf), 9);
	sqe = get_sqe(&ring);
	io_uring_prep_write(sqe, a[1], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	sqe = get_sqe(&ring);
	io_uring_prep_write(sqe, b[1], buf, sizeof(buf), 0);
	sqe->user_data = 1;
	submit_exact(&ring, 2);
	require_no_cqe(&ring, "both WRITEs submitted");

	discard(a[0], fa);
	discard(b[0], fb);
	reap(&ring, want, 2);
	discard(a[0], sizeof(buf));
	discard(b[0], sizeof(buf));

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 0;
}
