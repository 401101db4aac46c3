/* uringcheck-test: expect=clean options=--reap-lag-ms=50 */
/*
 * 1000 times: submit one NOP and reap its CQE at once (io_uring_wait_cqe +
 * io_uring_cqe_seen). Each CQE is consumed microseconds after it is posted,
 * far under the 50 ms threshold: no reap-lag, however many CQEs there are.
 *
 * Kernel entry after each CQE is posted: none needed (the NOP completes
 * inline in io_uring_submit; the reap is liburing's userspace path).
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

	URING(io_uring_queue_init(8, &ring, 0));

	for (int i = 0; i < 1000; i++) {
		sqe = get_sqe(&ring);
		io_uring_prep_nop(sqe);
		sqe->user_data = 0;
		submit_exact(&ring, 1);
		reap(&ring, want, 1);
	}
	if (io_uring_cq_ready(&ring))
		fail("completions left over");

	io_uring_queue_exit(&ring);
	return 0;
}
