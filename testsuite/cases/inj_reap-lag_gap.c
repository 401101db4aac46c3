/* uringcheck-test: expect=reap-lag options=--reap-lag-ms=50 */
/*
 * inj_reap-lag_wait, with a pause of 8 ms between the inline reap
 * (io_uring_cqe_seen, a plain store) and the next call into liburing
 * (io_uring_queue_exit): what a loaded machine does to a program
 * preempted there. With --liburing-uprobes that call is where the
 * program came back for its completion, and the report names it, even
 * though the reap-lag sampler (a quarter of the threshold apart) sees the
 * CQE consumed first (testsuite/run.sh, "reap-lag: uprobes across a
 * pause"). Without uprobes, the sampler reports it alone.
 */
#define _GNU_SOURCE
#include <liburing.h>
#include <unistd.h>

#include "uc_test.h"

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

	URING(io_uring_wait_cqe(&ring, &cqe));
	if (cqe->user_data != 7 || cqe->res != 0)
		fail("NOP: user_data=%llu res=%d", (unsigned long long)cqe->user_data, cqe->res);
	io_uring_cqe_seen(&ring, cqe);
	usleep(8 * 1000);			/* the pause before the next call */

	io_uring_queue_exit(&ring);
	return 0;
}
