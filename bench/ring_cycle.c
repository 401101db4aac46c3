// SPDX-License-Identifier: GPL-2.0
/*
 * Ring set-up and teardown, N times (default 2000): what test suites with
 * a ring per thread or per case pay (liburing's pipe-bug makes 10,000).
 * Prints microseconds per init+exit. docs/benchmark-history.md,
 * "Per-event costs".
 */
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000;
	struct timespec a, b;
	struct io_uring ring;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		if (io_uring_queue_init(8, &ring, 0))
			return 1;
		io_uring_queue_exit(&ring);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f us per ring init+exit\n",
	       ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e3 / n);
	return 0;
}
