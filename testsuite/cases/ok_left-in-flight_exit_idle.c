/* uringcheck-test: expect=clean */
/*
 * A READ from an empty pipe is in flight, the pipe is written and the CQE
 * reaped. The program then returns from main() with the ring still set up
 * (no io_uring_queue_exit): process exit tears the ring down, but nothing
 * is in flight and no CQE is pending, so nothing is dropped or unreaped.
 * Look-alike of inj_dropped_exit.
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
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");

	feed(a[1], 100, 1);
	reap(&ring, want, 1);

	return 0;	/* ring still open, but idle */
}
