// SPDX-License-Identifier: GPL-2.0
/*
 * A start-up burst unlike the rest: 1024 READs of 256 KiB from a file in
 * the page cache (tens of microseconds each), then 15,000 READs of 64
 * bytes (about a microsecond), one at a time on one ring. Of all 16,024
 * requests 94% are small, so the true p50 and p90 are a small read's.
 * A profile that times the first requests whole and later ones one in N
 * must weigh them accordingly, or the burst becomes the median.
 */
#include "../cases/uc_test.h"

static void one_read(struct io_uring *ring, int fd, char *buf, unsigned len)
{
	struct io_uring_cqe *cqe;

	io_uring_prep_read(get_sqe(ring), fd, buf, len, 0);
	submit_exact(ring, 1);
	URING(io_uring_wait_cqe(ring, &cqe));
	if (cqe->res != (int)len)
		fail("read: %d", cqe->res);
	io_uring_cqe_seen(ring, cqe);
}

int main(void)
{
	enum { BIG = 256 * 1024 };
	char path[] = "/tmp/uc-latmix-XXXXXX";
	static char buf[BIG];
	struct io_uring ring;
	int fd = SYS(mkstemp(path));

	unlink(path);
	memset(buf, 'x', sizeof(buf));
	SYS(write(fd, buf, sizeof(buf)));
	SYS(pread(fd, buf, sizeof(buf), 0));	/* in the page cache now */
	URING(io_uring_queue_init(8, &ring, 0));
	for (int i = 0; i < 1024; i++)
		one_read(&ring, fd, buf, BIG);
	for (int i = 0; i < 15000; i++)
		one_read(&ring, fd, buf, 64);
	io_uring_queue_exit(&ring);
	return 0;
}
