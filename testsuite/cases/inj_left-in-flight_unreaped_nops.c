/* uringcheck-test: expect=left-in-flight */
/*
 * Two NOPs complete (both CQEs are posted in the CQ ring, checked with
 * io_uring_cq_ready) but are never consumed; then io_uring_queue_exit().
 * Nothing was in flight at teardown, so nothing was dropped, but two posted
 * CQEs were never reaped: unreaped-cqe.
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

int main(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring ring;

	URING(io_uring_queue_init(8, &ring, 0));

	for (int i = 0; i < 2; i++) {
		sqe = get_sqe(&ring);
		io_uring_prep_nop(sqe);
		sqe->user_data = i;
	}
	submit_exact(&ring, 2);
	for (int i = 0; io_uring_cq_ready(&ring) < 2; i++) {
		if (i >= 5000)
			fail("the 2 NOPs did not complete within 5 s");
		usleep(1000);
	}

	io_uring_queue_exit(&ring);	/* 2 CQEs never consumed */
	return 0;
}
