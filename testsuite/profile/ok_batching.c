/* uringcheck-profile-test: expect=clean */
// SPDX-License-Identifier: GPL-2.0
/*
 * 3008 NOPs, 32 per io_uring_submit_and_wait: batched. Must stay silent.
 */
#include "../cases/uc_test.h"

int main(void)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;

	URING(io_uring_queue_init(32, &ring, 0));
	for (int b = 0; b < 94; b++) {
		for (int i = 0; i < 32; i++)
			io_uring_prep_nop(get_sqe(&ring));
		URING(io_uring_submit_and_wait(&ring, 32));
		for (int i = 0; i < 32; i++) {
			URING(io_uring_wait_cqe(&ring, &cqe));
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	io_uring_queue_exit(&ring);
	return 0;
}
