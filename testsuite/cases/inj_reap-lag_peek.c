/* uringcheck-test: expect=reap-lag options=--reap-lag-ms=50 match="while it waited, thread [0-9]+ spent [0-9.]+ ms in clock_nanosleep[(][)]" */
/*
 * A NOP is submitted; its CQE is in the CQ ring when io_uring_submit()
 * returns (checked). After a 300 ms sleep it is consumed with
 * io_uring_peek_cqe + io_uring_cqe_seen: the CQE sat ready ~300 ms, over
 * the 50 ms threshold: reap-lag.
 *
 * Kernel entry after the CQE is posted: NONE (liburing's inline path: peek
 * reads the ring, cqe_seen advances the CQ head with a plain store; the
 * only syscall in between is the sleep). A checker that only looks at
 * io_uring_enter(GETEVENTS) cannot see this reap.
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

	URING(io_uring_peek_cqe(&ring, &cqe));
	if (cqe->user_data != 7 || cqe->res != 0)
		fail("NOP: user_data=%llu res=%d", (unsigned long long)cqe->user_data, cqe->res);
	io_uring_cqe_seen(&ring, cqe);

	io_uring_queue_exit(&ring);
	return 0;
}
