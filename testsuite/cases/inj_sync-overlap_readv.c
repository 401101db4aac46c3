/* uringcheck-test: expect=sync-overlap match="sync-overlap: readv[(][)] stored into" */
/*
 * Through an iovec: a READ from an empty pipe into buf (8 KiB) is in
 * flight; the program reads a file into the second half of buf with
 * preadv(2), then again with readv(2). Two sync-overlap findings, one per
 * call, each on the 4 KiB the call stored.
 */
#include "uc_test.h"
#include <sys/uio.h>

static char buf[8192] __attribute__((aligned(4096)));

int main(void)
{
	char tmpl[] = "/tmp/uc_sync_XXXXXX";
	struct iovec iov = { .iov_base = buf + 4096, .iov_len = 4096 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	int a[2], fd;

	SYS(pipe(a));
	fd = SYS(mkstemp(tmpl));
	SYS(unlink(tmpl));
	feed(fd, 4096, 9);
	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");

	if (SYS(preadv(fd, &iov, 1, 0)) != 4096)		/* stores */
		fail("preadv: short");
	if (SYS(lseek(fd, 0, SEEK_SET)) != 0 || SYS(readv(fd, &iov, 1)) != 4096)
		fail("readv: short");

	feed(a[1], 100, 1);
	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != 100)
		fail("READ: user_data=%llu res=%d", (unsigned long long)c.user_data, c.res);
	io_uring_queue_exit(&ring);
	return 0;
}
