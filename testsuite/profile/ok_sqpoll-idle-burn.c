/* uringcheck-profile-test: expect=clean */
// SPDX-License-Identifier: GPL-2.0
/*
 * A healthy saturated SQPOLL ring: NOPs in batches of 32 for 1.5 s. The
 * poller is on its CPU all the time and submits hundreds of thousands of
 * requests per second. Must stay silent.
 */
#include "../cases/uc_test.h"

#include <time.h>

int main(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SQPOLL, .sq_thread_idle = 1000 };
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct timespec t0, t;

	URING(io_uring_queue_init_params(64, &ring, &p));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 32; i++)
			io_uring_prep_nop(get_sqe(&ring));
		URING(io_uring_submit(&ring));
		for (int i = 0; i < 32; i++) {
			URING(io_uring_wait_cqe(&ring, &cqe));
			io_uring_cqe_seen(&ring, cqe);
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < 1500);
	io_uring_queue_exit(&ring);
	return 0;
}
