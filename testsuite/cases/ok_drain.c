/* uringcheck-test: expect=clean */
/*
 * READ #1 from an empty pipe into buf, then READ #2 into the same buf with
 * IOSQE_IO_DRAIN from a pipe that already holds data. The drained READ may
 * not start before every earlier request completed, so it cannot race with
 * READ #1: no hazard. We check READ #2 did not run early (its data was
 * available), then complete READ #1 by writing its pipe.
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

static char buf[64];

int main(void)
{
	const int want[2] = { sizeof(buf), sizeof(buf) };
	char second[sizeof(buf)];
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2], b[2];

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &ring, 0));
	pattern(second, sizeof(second), 2);
	write_all(b[1], second, sizeof(second));	/* READ #2 could complete at once */

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, b[0], buf, sizeof(buf), 0);
	sqe->flags |= IOSQE_IO_DRAIN;
	sqe->user_data = 1;
	submit_exact(&ring, 2);
	require_no_cqe(&ring, "READ + drained READ submitted");

	feed(a[1], sizeof(buf), 1);
	reap(&ring, want, 2);
	if (memcmp(buf, second, sizeof(buf)))
		fail("drained READ did not run after the first one");

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 0;
}
