/* uringcheck-profile-test: expect=clean */
// SPDX-License-Identifier: GPL-2.0
/*
 * inj_sqpoll-stall_sparse.c's look-alike: the same 12 wake-ups of a
 * poller idle after 10 ms, each starting a phase of 100 NOPs in batches
 * of 10. A wake-up per phase is what SQPOLL costs between phases, not a
 * stall: 12 for 1200 SQEs. Must stay silent.
 */
#include "../cases/uc_test.h"

int main(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SQPOLL, .sq_thread_idle = 10 };
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int asleep = 0;

	URING(io_uring_queue_init_params(16, &ring, &p));
	for (int phase = 0; phase < 12; phase++) {
		usleep(100000);
		for (int b = 0; b < 10; b++) {
			for (int i = 0; i < 10; i++)
				io_uring_prep_nop(get_sqe(&ring));
			asleep += !!(IO_URING_READ_ONCE(*ring.sq.kflags) & IORING_SQ_NEED_WAKEUP);
			URING(io_uring_submit(&ring));
			for (int i = 0; i < 10; i++) {
				URING(io_uring_wait_cqe(&ring, &cqe));
				io_uring_cqe_seen(&ring, cqe);
			}
		}
	}
	if (asleep < 10)
		fail("the poller was asleep only %d times at a phase's start", asleep);
	io_uring_queue_exit(&ring);
	return 0;
}
