// SPDX-License-Identifier: GPL-2.0
/*
 * nop_loop SECONDS: NOPs in batches of 32 for SECONDS seconds, then exit 0.
 * A busy ring for the attach (-p, -a), live (-i) and /metrics tests.
 */
#include "../cases/uc_test.h"

#include <time.h>

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct timespec t0, t;

	URING(io_uring_queue_init(64, &ring, 0));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 32; i++)
			io_uring_prep_nop(get_sqe(&ring));
		URING(io_uring_submit_and_wait(&ring, 32));
		for (int i = 0; i < 32; i++) {
			URING(io_uring_wait_cqe(&ring, &cqe));
			io_uring_cqe_seen(&ring, cqe);
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	io_uring_queue_exit(&ring);
	return 0;
}
