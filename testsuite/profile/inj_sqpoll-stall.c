/* uringcheck-profile-test: expect=sqpoll-stall */
// SPDX-License-Identifier: GPL-2.0
/*
 * An SQPOLL ring whose poller sleeps after 1 ms idle (the kernel counts it
 * in jiffies: up to 8 ms at HZ=250), given one NOP every 15 ms: nearly
 * every submission finds it asleep and must wake it (io_uring_submit
 * passes IORING_ENTER_SQ_WAKEUP when the kernel asks).
 */
#include "../cases/uc_test.h"

int main(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SQPOLL, .sq_thread_idle = 1 };
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int asleep = 0;

	URING(io_uring_queue_init_params(8, &ring, &p));
	for (int i = 0; i < 150; i++) {
		io_uring_prep_nop(get_sqe(&ring));
		asleep += !!(IO_URING_READ_ONCE(*ring.sq.kflags) & IORING_SQ_NEED_WAKEUP);
		URING(io_uring_submit(&ring));
		URING(io_uring_wait_cqe(&ring, &cqe));
		io_uring_cqe_seen(&ring, cqe);
		usleep(15000);
	}
	if (asleep < 120)
		fail("the poller was asleep only %d times of 150", asleep);
	io_uring_queue_exit(&ring);
	return 0;
}
