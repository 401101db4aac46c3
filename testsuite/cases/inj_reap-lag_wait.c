/* uringcheck-test: expect=reap-lag options=--reap-lag-ms=50 */
/*
 * A NOP is submitted; it completes inline during io_uring_submit(), so its
 * CQE is in the CQ ring when submit returns (checked). The program sleeps
 * 300 ms and only then reaps it with io_uring_wait_cqe + io_uring_cqe_seen:
 * the CQE sat ready ~300 ms, far over the 50 ms threshold: reap-lag.
 *
 * Kernel entry after the CQE is posted: NONE for the reap. With liburing
 * 2.3, io_uring_wait_cqe finds the CQE already in the ring and returns
 * without io_uring_enter; the CQ head is advanced by a plain store in
 * io_uring_cqe_seen. (The only syscall in between is the sleep.)
 *
 * inj_reap-lag_wait MS: a pause of MS ms between that inline reap and the
 * next call into liburing (io_uring_queue_exit), what a loaded machine
 * does to a program preempted there: with --liburing-uprobes the report
 * still names that call, though the reap-lag sampler sees the CQE
 * consumed first (testsuite/run.sh, "reap-lag: uprobes across a pause").
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

int main(int argc, char **argv)
{
	int pause_ms = argc > 1 ? atoi(argv[1]) : 0;
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

	URING(io_uring_wait_cqe(&ring, &cqe));
	if (cqe->user_data != 7 || cqe->res != 0)
		fail("NOP: user_data=%llu res=%d", (unsigned long long)cqe->user_data, cqe->res);
	io_uring_cqe_seen(&ring, cqe);
	if (pause_ms)
		usleep(pause_ms * 1000);

	io_uring_queue_exit(&ring);
	return 0;
}
