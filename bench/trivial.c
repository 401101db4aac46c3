// SPDX-License-Identifier: GPL-2.0
/*
 * trivial: the smallest io_uring program -- one ring, one NOP, exit.
 * The start-up benchmark times launch-to-exit of this, plain and under
 * uringcheck.
 */
#include <liburing.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int ret = io_uring_queue_init(1, &ring, 0);

	if (ret < 0) {
		fprintf(stderr, "trivial: io_uring_queue_init: %s\n", strerror(-ret));
		return 1;
	}
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	ret = io_uring_submit_and_wait(&ring, 1);
	if (ret == 1)
		ret = io_uring_wait_cqe(&ring, &cqe);
	if (ret < 0 || cqe->res < 0) {
		fprintf(stderr, "trivial: NOP failed\n");
		return 1;
	}
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	return 0;
}
