/* uringcheck-profile-test: expect=fidelity options=--profile-rings=1 */
// SPDX-License-Identifier: GPL-2.0
/*
 * Two rings, 256 NOPs on each in batches of 32, under --profile-rings=1:
 * the second ring is not profiled, and the report must say so.
 */
#include "../cases/uc_test.h"

static void nops(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;

	for (int b = 0; b < 8; b++) {
		for (int i = 0; i < 32; i++)
			io_uring_prep_nop(get_sqe(ring));
		URING(io_uring_submit_and_wait(ring, 32));
		for (int i = 0; i < 32; i++) {
			URING(io_uring_wait_cqe(ring, &cqe));
			io_uring_cqe_seen(ring, cqe);
		}
	}
}

int main(void)
{
	struct io_uring a, b;

	URING(io_uring_queue_init(32, &a, 0));
	URING(io_uring_queue_init(32, &b, 0));
	nops(&a);
	nops(&b);
	io_uring_queue_exit(&a);
	io_uring_queue_exit(&b);
	return 0;
}
