/* uringcheck-profile-test: expect=sqpoll-stall */
// SPDX-License-Identifier: GPL-2.0
/*
 * A sparse SQPOLL ring (uringscope's pathology "sqpoll-stall" in small):
 * 12 NOPs 100 ms apart, the poller idle after 10 ms. Nearly every
 * submission finds the poller asleep: SQPOLL saves no system call and
 * spins after each request. Too few wake-ups for the busy-ring threshold
 * (100); the sparse one (8, and three SQEs in four) names it.
 */
#include "../cases/uc_test.h"

int main(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SQPOLL, .sq_thread_idle = 10 };
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int asleep = 0;

	URING(io_uring_queue_init_params(8, &ring, &p));
	for (int i = 0; i < 12; i++) {
		usleep(100000);
		io_uring_prep_nop(get_sqe(&ring));
		asleep += !!(IO_URING_READ_ONCE(*ring.sq.kflags) & IORING_SQ_NEED_WAKEUP);
		URING(io_uring_submit(&ring));
		URING(io_uring_wait_cqe(&ring, &cqe));
		io_uring_cqe_seen(&ring, cqe);
	}
	if (asleep < 10)
		fail("the poller was asleep only %d times of 12", asleep);
	io_uring_queue_exit(&ring);
	return 0;
}
