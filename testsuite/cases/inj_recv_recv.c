/* uringcheck-test: expect=overlap */
/*
 * Two RECVs on two empty AF_UNIX stream socketpairs, into [buf, buf+4096)
 * and [buf+1000, buf+5096). Both wait for data in the kernel, so they are in
 * flight together and share 3 KiB: overlap.
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

static char buf[8192] __attribute__((aligned(4096)));

int main(void)
{
	const int want[2] = { 100, 200 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int s1[2], s2[2];

	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, s1));
	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, s2));
	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_recv(sqe, s1[0], buf, 4096, 0);
	sqe->user_data = 0;
	sqe = get_sqe(&ring);
	io_uring_prep_recv(sqe, s2[0], buf + 1000, 4096, 0);
	sqe->user_data = 1;
	submit_exact(&ring, 2);
	require_no_cqe(&ring, "both RECVs submitted");

	feed(s1[1], 100, 1);
	feed(s2[1], 200, 2);
	reap(&ring, want, 2);

	io_uring_queue_exit(&ring);
	close(s1[0]); close(s1[1]); close(s2[0]); close(s2[1]);
	return 0;
}
