/* uringcheck-test: expect=left-in-flight match="moved its CQ head 3 entries past the tail" */
/*
 * A program bug seen in the wild: it advances the CQ head past the tail
 * (consuming completions never posted). At teardown this is said as such,
 * not as 4294967293 unconsumed CQEs.
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
	struct io_uring ring;

	URING(io_uring_queue_init(8, &ring, 0));
	io_uring_cq_advance(&ring, 3);
	io_uring_queue_exit(&ring);
	return 0;
}
