/* uringcheck-test: expect=clean kind=runner */
/*
 * Runner helper: submits and reaps one NOP, closes its ring, then exits with
 * status 3. The runner must pass the program's exit status through.
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
	const int want[1] = { 0 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;

	URING(io_uring_queue_init(4, &ring, 0));
	sqe = get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	reap(&ring, want, 1);
	io_uring_queue_exit(&ring);
	return 3;
}
