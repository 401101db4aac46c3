/* uringcheck-profile-test: expect=cq-overflow */
// SPDX-License-Identifier: GPL-2.0
/*
 * A CQ ring of 16 entries, and 32 NOPs submitted (8 at a time) before any
 * is reaped: 16 CQEs go to the kernel's overflow list (IORING_FEAT_NODROP
 * keeps them), from where liburing flushes them while reaping.
 */
#include "../cases/uc_test.h"

int main(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE, .cq_entries = 16 };
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int got = 0;

	URING(io_uring_queue_init_params(8, &ring, &p));
	if (!(p.features & IORING_FEAT_NODROP))
		fail("the kernel drops overflowed CQEs: no overflow list to test");
	for (int b = 0; b < 4; b++) {
		for (int i = 0; i < 8; i++)
			io_uring_prep_nop(get_sqe(&ring));
		submit_exact(&ring, 8);
	}
	if (!io_uring_cq_has_overflow(&ring))
		fail("no overflow: the test did not do what it says");
	while (got < 32) {
		URING(io_uring_wait_cqe(&ring, &cqe));
		io_uring_cqe_seen(&ring, cqe);
		got++;
	}
	io_uring_queue_exit(&ring);
	return 0;
}
