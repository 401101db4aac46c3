/* uringcheck-test: expect=sync-overlap match="sync-overlap: pread64[(][)] stored into 4096 bytes that the in-flight READ still holds" */
/*
 * The sync fallback bug: a READ from an empty pipe into buf is in flight
 * when the program, taking a "slow path", reads a file into the same buf
 * with pread(2). Both store into buf; which data remains depends on which
 * finishes last (here the pipe's, written afterwards): sync-overlap.
 */
#include "uc_test.h"

static char buf[4096] __attribute__((aligned(4096)));

int main(void)
{
	char tmpl[] = "/tmp/uc_sync_XXXXXX";
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

	if (SYS(pread(fd, buf, sizeof(buf), 0)) != sizeof(buf))	/* the bug */
		fail("pread: short");

	feed(a[1], 100, 1);
	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != 100)
		fail("READ: user_data=%llu res=%d", (unsigned long long)c.user_data, c.res);
	io_uring_queue_exit(&ring);
	return 0;
}
