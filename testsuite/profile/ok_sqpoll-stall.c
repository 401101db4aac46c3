/* uringcheck-profile-test: expect=clean */
// SPDX-License-Identifier: GPL-2.0
/*
 * An SQPOLL ring whose poller stays up 1 s, given one NOP every 2 ms for
 * 0.4 s: it never falls asleep, so nothing needs a wake-up; and the run
 * is shorter than the idle-burn rule's one-second window. Must stay silent.
 */
#include "../cases/uc_test.h"

int main(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SQPOLL, .sq_thread_idle = 1000 };
	struct io_uring ring;
	struct io_uring_cqe *cqe;

	URING(io_uring_queue_init_params(8, &ring, &p));
	for (int i = 0; i < 200; i++) {
		io_uring_prep_nop(get_sqe(&ring));
		URING(io_uring_submit(&ring));
		URING(io_uring_wait_cqe(&ring, &cqe));
		io_uring_cqe_seen(&ring, cqe);
		usleep(2000);
	}
	io_uring_queue_exit(&ring);
	return 0;
}
