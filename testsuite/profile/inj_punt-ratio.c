/* uringcheck-profile-test: expect=punt-ratio */
// SPDX-License-Identifier: GPL-2.0
/*
 * 2000 FSYNCs of a small file, 16 per io_uring_submit: FSYNC never runs
 * inline, so every one goes to the io-wq worker pool. Batched, so the
 * batching rule stays silent; reaped at once, so nothing else fires.
 */
#include "../cases/uc_test.h"

int main(void)
{
	char path[] = "/tmp/uc-punt-XXXXXX";
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int fd = SYS(mkstemp(path));

	unlink(path);
	SYS(write(fd, "some data", 9));
	URING(io_uring_queue_init(32, &ring, 0));
	for (int round = 0; round < 125; round++) {
		for (int i = 0; i < 16; i++)
			io_uring_prep_fsync(get_sqe(&ring), fd, IORING_FSYNC_DATASYNC);
		submit_exact(&ring, 16);
		for (int i = 0; i < 16; i++) {
			URING(io_uring_wait_cqe(&ring, &cqe));
			if (cqe->res < 0)
				fail("fsync: %s", strerror(-cqe->res));
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	io_uring_queue_exit(&ring);
	return 0;
}
