/* uringcheck-profile-test: expect=clean */
// SPDX-License-Identifier: GPL-2.0
/*
 * The same ring (16 CQEs) and 32 NOPs, 8 at a time, each batch reaped
 * before the next: the CQ ring never fills. Must stay silent.
 */
#include "../cases/uc_test.h"

int main(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE, .cq_entries = 16 };
	struct io_uring ring;
	struct io_uring_cqe *cqe;

	URING(io_uring_queue_init_params(8, &ring, &p));
	for (int b = 0; b < 4; b++) {
		for (int i = 0; i < 8; i++)
			io_uring_prep_nop(get_sqe(&ring));
		URING(io_uring_submit_and_wait(&ring, 8));
		for (int i = 0; i < 8; i++) {
			URING(io_uring_wait_cqe(&ring, &cqe));
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	io_uring_queue_exit(&ring);
	return 0;
}
