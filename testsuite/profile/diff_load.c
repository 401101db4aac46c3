// SPDX-License-Identifier: GPL-2.0
/*
 * diff_load fast|slow: 2048 NOPs and 2048 READs of 64 bytes from a file
 * in the page cache, one of each per submit. "slow" flags the READs
 * IOSQE_ASYNC: each then runs in io-wq, tens of times slower than
 * inline, while the NOPs stay as they are. The --baseline/--diff tests
 * take a baseline of "fast" and compare "slow" (READ must be named,
 * slower and punted) and "fast" again (nothing past the thresholds).
 */
#include "../cases/uc_test.h"

int main(int argc, char **argv)
{
	bool slow = argc > 1 && !strcmp(argv[1], "slow");
	char path[] = "/tmp/uc-diffload-XXXXXX";
	char buf[64];
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int fd = SYS(mkstemp(path));

	unlink(path);
	memset(buf, 'x', sizeof(buf));
	SYS(write(fd, buf, sizeof(buf)));
	URING(io_uring_queue_init(8, &ring, 0));
	for (int i = 0; i < 2048; i++) {
		struct io_uring_sqe *sqe = get_sqe(&ring);

		io_uring_prep_read(sqe, fd, buf, sizeof(buf), 0);
		if (slow)
			sqe->flags |= IOSQE_ASYNC;
		io_uring_prep_nop(get_sqe(&ring));
		submit_exact(&ring, 2);
		for (int k = 0; k < 2; k++) {
			URING(io_uring_wait_cqe(&ring, &cqe));
			if (cqe->res < 0)
				fail("request: %d", cqe->res);
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	io_uring_queue_exit(&ring);
	return 0;
}
