/* uringcheck-test: expect=left-in-flight */
/*
 * Three READs from the same empty pipe into three distinct buffers, all
 * prepared at ONE call site (a loop), are in flight when io_uring_queue_exit()
 * tears the ring down: all three are dropped (one group of 3 from the same
 * call site). The buffers are disjoint, so there is no overlap.
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

int main(void)
{
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

	io_uring_queue_exit(&ring);	/* 3 READs still in flight */
	close(a[0]); close(a[1]);
	return 0;
}
