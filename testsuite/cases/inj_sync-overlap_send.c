/* uringcheck-test: expect=sync-overlap */
/*
 * A RECV on one socket pair fills buf; meanwhile the program sends buf
 * on another socket pair with sendto(2): what it sends depends on when
 * the RECV's data lands. sync-overlap (the call loads).
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
	int s1[2], s2[2];

	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, s1));
	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, s2));
	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_recv(sqe, s1[0], buf, 100, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "the RECV waits");

	if (sendto(s2[1], buf, 50, 0, NULL, 0) != 50)	/* the bug */
		fail("sendto: %s", strerror(errno));

	feed(s1[1], 100, 1);
	reap(&ring, want, 1);
	discard(s2[0], 50);
	io_uring_queue_exit(&ring);
	close(s1[0]); close(s1[1]); close(s2[0]); close(s2[1]);
	return 0;
}
