/* uringcheck-profile-test: expect=clean */
// SPDX-License-Identifier: GPL-2.0
/*
 * Results that are how requests normally end: 512 TIMEOUTs of 1 us end
 * with -ETIME, 256 ASYNC_CANCELs of a user_data nobody has end with
 * -ENOENT. 32 per submit. Must stay silent.
 */
#include "../cases/uc_test.h"

int main(void)
{
	struct __kernel_timespec ts = { .tv_nsec = 1000 };
	struct io_uring ring;
	struct io_uring_cqe *cqe;

	URING(io_uring_queue_init(32, &ring, 0));
	for (int b = 0; b < 24; b++) {
		for (int i = 0; i < 32; i++) {
			if (b < 16)
				io_uring_prep_timeout(get_sqe(&ring), &ts, 0, 0);
			else
				io_uring_prep_cancel64(get_sqe(&ring), 0xdead0000ull + i, 0);
		}
		URING(io_uring_submit_and_wait(&ring, 32));
		for (int i = 0; i < 32; i++) {
			URING(io_uring_wait_cqe(&ring, &cqe));
			if (cqe->res != (b < 16 ? -ETIME : -ENOENT))
				fail("round %d: %d", b, cqe->res);
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	io_uring_queue_exit(&ring);
	return 0;
}
