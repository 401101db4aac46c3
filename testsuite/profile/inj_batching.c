/* uringcheck-profile-test: expect=batching */
// SPDX-License-Identifier: GPL-2.0
/*
 * 3000 NOPs, one io_uring_submit per NOP and a wait for its CQE: one
 * system call per request, what io_uring exists to avoid.
 */
#include "../cases/uc_test.h"

int main(void)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;

	URING(io_uring_queue_init(8, &ring, 0));
	for (int i = 0; i < 3000; i++) {
		io_uring_prep_nop(get_sqe(&ring));
		submit_exact(&ring, 1);
		URING(io_uring_wait_cqe(&ring, &cqe));
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	return 0;
}
