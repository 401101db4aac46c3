/* uringcheck-profile-test: expect=error-flood */
// SPDX-License-Identifier: GPL-2.0
/*
 * 512 READs from a descriptor that is not open: every one fails with
 * -EBADF. 32 per submit.
 */
#include "../cases/uc_test.h"

int main(void)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	char buf[64];
	int fd = 1000;	/* far above anything this program opens */

	if (fcntl(fd, F_GETFD) != -1)
		fail("fd %d is open", fd);
	URING(io_uring_queue_init(32, &ring, 0));
	for (int b = 0; b < 16; b++) {
		for (int i = 0; i < 32; i++)
			io_uring_prep_read(get_sqe(&ring), fd, buf, sizeof(buf), 0);
		URING(io_uring_submit_and_wait(&ring, 32));
		for (int i = 0; i < 32; i++) {
			URING(io_uring_wait_cqe(&ring, &cqe));
			if (cqe->res != -EBADF)
				fail("read of a fd that is not open: %d", cqe->res);
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	io_uring_queue_exit(&ring);
	return 0;
}
