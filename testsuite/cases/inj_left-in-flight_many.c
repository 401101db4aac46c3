/* uringcheck-test: expect=left-in-flight */
/*
 * 2048 READs from empty pipes, each into its own 16 bytes, are in flight
 * when the program exits: all of them are dropped. The teardown walk
 * covers the whole in-flight table, and the report is counted once per
 * call site (the repeats in the summary).
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

#define N	2048
#define PIPES	32
#define SLICE	16

static char buf[N * SLICE] __attribute__((aligned(4096)));

int main(void)
{
	struct io_uring ring;
	int fds[PIPES][2];

	for (unsigned i = 0; i < PIPES; i++)
		SYS(pipe(fds[i]));
	URING(io_uring_queue_init(256, &ring, 0));
	for (unsigned i = 0; i < N; i++) {
		struct io_uring_sqe *sqe = get_sqe(&ring);

		io_uring_prep_read(sqe, fds[i % PIPES][0], buf + i * SLICE, SLICE, 0);
		sqe->user_data = i;
		if ((i + 1) % 256 == 0)
			submit_exact(&ring, 256);
	}
	require_no_cqe(&ring, "READs from empty pipes submitted");
	return 0;	/* all 2048 still in flight */
}
