/* uringcheck-test: expect=sync-overlap */
/*
 * A READ from an empty pipe fills buf; meanwhile the program write(2)s
 * buf into another pipe: the bytes it sends are the ones the READ may be
 * storing into at that moment. sync-overlap (the call loads).
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
	const int want[1] = { 64 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2], b[2];

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, 64, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "the READ waits");

	write_all(b[1], buf + 16, 32);		/* the bug */

	feed(a[1], 64, 1);
	reap(&ring, want, 1);
	discard(b[0], 32);
	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 0;
}
