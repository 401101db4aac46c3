/* uringcheck-profile-test: expect=sqpoll-idle-burn */
// SPDX-License-Identifier: GPL-2.0
/*
 * An SQPOLL ring whose poller may spin 5 s before sleeping, given one NOP
 * every 100 ms for 2 s: the poller burns its CPU for 20 requests.
 */
#include "../cases/uc_test.h"

int main(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SQPOLL, .sq_thread_idle = 5000 };
	struct io_uring ring;
	struct io_uring_cqe *cqe;

	URING(io_uring_queue_init_params(8, &ring, &p));
	for (int i = 0; i < 20; i++) {
		io_uring_prep_nop(get_sqe(&ring));
		URING(io_uring_submit(&ring));
		URING(io_uring_wait_cqe(&ring, &cqe));
		io_uring_cqe_seen(&ring, cqe);
		usleep(100000);
	}
	io_uring_queue_exit(&ring);
	return 0;
}
