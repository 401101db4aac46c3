/* uringcheck-test: expect=overlap match="overlap: .*WRITE" */
/*
 * Not the "write feeds the read" pair: a READ waits on pipe a into buf,
 * then a WRITE sends buf into another pipe, b. The READ's bytes come from
 * whoever writes a (here the program, later), not from that WRITE: the
 * READ stores into bytes the WRITE loads. An overlap, though the WRITE
 * completes at once.
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
#include <sys/uio.h>
#include <unistd.h>

#include "uc_test.h"

/* ---- end of common helpers ---- */

static char buf[128];

int main(void)
{
	const int want[2] = { 100, sizeof(buf) };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2], b[2];

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &ring, 0));
	pattern(buf, sizeof(buf), 3);

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");
	sqe = get_sqe(&ring);
	io_uring_prep_write(sqe, b[1], buf, sizeof(buf), 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	feed(a[1], 100, 1);		/* completes the READ */
	reap(&ring, want, 2);
	discard(b[0], sizeof(buf));

	io_uring_queue_exit(&ring);
	return 0;
}
