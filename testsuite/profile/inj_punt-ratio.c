/* uringcheck-profile-test: expect=punt-ratio */
// SPDX-License-Identifier: GPL-2.0
/*
 * 2000 4 KiB READs of a file in the page cache, 16 per submit, every one
 * flagged IOSQE_ASYNC: each could complete inline, but the program sends
 * it to the io-wq worker pool. A punt the program can avoid, on every
 * kernel. Batched, so the batching rule stays silent; reaped at once.
 */
#include "../cases/uc_test.h"

int main(void)
{
	char path[] = "/tmp/uc-punt-XXXXXX";
	static char buf[16 * 4096];
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int fd = SYS(mkstemp(path));

	unlink(path);
	memset(buf, 'x', sizeof(buf));
	SYS(write(fd, buf, sizeof(buf)));
	SYS(pread(fd, buf, sizeof(buf), 0));	/* in the page cache now */
	URING(io_uring_queue_init(32, &ring, 0));
	for (int round = 0; round < 125; round++) {
		for (int i = 0; i < 16; i++) {
			struct io_uring_sqe *sqe = get_sqe(&ring);

			io_uring_prep_read(sqe, fd, buf + i * 4096, 4096, i * 4096);
			sqe->flags |= IOSQE_ASYNC;
		}
		submit_exact(&ring, 16);
		for (int i = 0; i < 16; i++) {
			URING(io_uring_wait_cqe(&ring, &cqe));
			if (cqe->res != 4096)
				fail("read: %d", cqe->res);
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	io_uring_queue_exit(&ring);
	return 0;
}
