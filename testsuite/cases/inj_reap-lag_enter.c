/* uringcheck-test: expect=reap-lag options=--reap-lag-ms=50 */
/*
 * A NOP is submitted; its CQE is in the CQ ring when io_uring_submit()
 * returns (checked). After a 300 ms sleep the program calls
 * io_uring_submit_and_wait(ring, 1) (nothing to submit, wait for 1), then
 * peeks and consumes the CQE: it sat ready ~300 ms, over the 50 ms
 * threshold: reap-lag.
 *
 * Kernel entry after the CQE is posted: YES. io_uring_submit_and_wait with
 * wait_nr=1 always calls io_uring_enter(IORING_ENTER_GETEVENTS, min 1),
 * which returns at once because the CQE is already there; the CQ head is
 * then advanced in userspace by io_uring_cqe_seen.
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
	struct io_uring_cqe *cqe;
	struct io_uring ring;

	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 7;
	submit_exact(&ring, 1);
	if (io_uring_cq_ready(&ring) != 1)
		fail("the NOP's CQE was not posted during submit");

	usleep(300 * 1000);			/* the lag */

	if (URING(io_uring_submit_and_wait(&ring, 1)) != 0)
		fail("io_uring_submit_and_wait submitted something");
	URING(io_uring_peek_cqe(&ring, &cqe));
	if (cqe->user_data != 7 || cqe->res != 0)
		fail("NOP: user_data=%llu res=%d", (unsigned long long)cqe->user_data, cqe->res);
	io_uring_cqe_seen(&ring, cqe);

	io_uring_queue_exit(&ring);
	return 0;
}
