/* uringcheck-test: expect=clean */
/*
 * One NOP with IOSQE_CQE_SKIP_SUCCESS: it finishes at once and posts no
 * CQE. 100 ms later the program exits with the ring open. Nothing was in
 * flight at exit, so nothing is reported.
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
	sqe = get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
	submit_exact(&ring, 1);
	usleep(100 * 1000);
	if (io_uring_cq_ready(&ring))
		fail("the skipped NOP posted a CQE");
	return 0;
}
