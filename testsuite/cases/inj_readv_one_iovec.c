/* uringcheck-test: expect=overlap */
/*
 * A READV with 4 iovecs from an empty pipe. iovecs 0, 1 and 3 point into
 * area[] and are disjoint from everything else; only iovec 2 points into
 * other[]. A plain READ from a second empty pipe into other[128..384) is in
 * flight at the same time and overlaps iovec 2 ([0, 256) of other[]) only:
 * overlap (found only if every iovec's data range is checked). The iovec
 * array itself does not overlap anything.
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
#include <sys/uio.h>

static char area[4096] __attribute__((aligned(4096)));
static char other[4096] __attribute__((aligned(4096)));
static struct iovec iov[4];

int main(void)
{
	const int want[2] = { 4 * 256, 100 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2], b[2];

	iov[0] = (struct iovec){ area + 0, 256 };
	iov[1] = (struct iovec){ area + 1024, 256 };
	iov[2] = (struct iovec){ other + 0, 256 };	/* the overlapping one */
	iov[3] = (struct iovec){ area + 2048, 256 };

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_readv(sqe, a[0], iov, 4, 0);
	sqe->user_data = 0;
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, b[0], other + 128, 256, 0);
	sqe->user_data = 1;
	submit_exact(&ring, 2);
	require_no_cqe(&ring, "READV and READ submitted");

	feed(a[1], 4 * 256, 1);
	feed(b[1], 100, 2);
	reap(&ring, want, 2);

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 0;
}
