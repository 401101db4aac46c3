/* uringcheck-profile-test: expect=clean */
// SPDX-License-Identifier: GPL-2.0
/*
 * 2000 4 KiB READs of a file in the page cache, 16 per submit: they
 * complete inline. Plus 400 more with IOSQE_ASYNC, punted because the
 * program asked: 400 of 2400 is below the rule's half, and below its
 * 1000 punts. Must stay silent.
 */
#include "../cases/uc_test.h"

static void batch(struct io_uring *ring, int fd, char *buf, int n, unsigned flags, int round)
{
	struct io_uring_cqe *cqe;

	for (int i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = get_sqe(ring);

		io_uring_prep_read(sqe, fd, buf + i * 4096, 4096, ((round * n + i) % 16) * 4096);
		sqe->flags |= flags;
	}
	submit_exact(ring, n);
	for (int i = 0; i < n; i++) {
		URING(io_uring_wait_cqe(ring, &cqe));
		if (cqe->res != 4096)
			fail("read: %d", cqe->res);
		io_uring_cqe_seen(ring, cqe);
	}
}

int main(void)
{
	char path[] = "/tmp/uc-okpunt-XXXXXX";
	static char buf[16 * 4096];
	struct io_uring ring;
	int fd = SYS(mkstemp(path));

	unlink(path);
	memset(buf, 'x', sizeof(buf));
	SYS(write(fd, buf, sizeof(buf)));
	SYS(pread(fd, buf, sizeof(buf), 0));	/* in the page cache now */
	URING(io_uring_queue_init(32, &ring, 0));
	for (int round = 0; round < 125; round++)
		batch(&ring, fd, buf, 16, 0, round);
	for (int round = 0; round < 25; round++)
		batch(&ring, fd, buf, 16, IOSQE_ASYNC, round);
	io_uring_queue_exit(&ring);
	return 0;
}
