/* uringcheck-test: expect=sync-overlap match="sync-overlap: pread64[(][)] stored into 4096 bytes that the in-flight READV still holds" */
/*
 * Past the record: a READV of six iovecs (the even pages 0..10 of area)
 * from an empty pipe is in flight. Its last two ranges do not fit its
 * submission record (continuation records), so the kernel's read span is
 * the whole address space and every sync call is sent (counted:
 * sync_calls_sent_unindexed). The program reads a file with pread(2)
 * into page 10, the sixth iovec, one of those continued ranges: found.
 * The look-alikes (the pages between the iovecs) are in
 * ok_sync-overlap_index_lookalikes.c.
 */
#include "uc_test.h"
#include <sys/uio.h>

#define PAGE	4096

static char area[12 * PAGE] __attribute__((aligned(PAGE)));

int main(void)
{
	char tmpl[] = "/tmp/uc_sync_XXXXXX";
	struct iovec iov[6];
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	int a[2], fd;

	SYS(pipe(a));
	fd = SYS(mkstemp(tmpl));
	SYS(unlink(tmpl));
	feed(fd, PAGE, 9);
	URING(io_uring_queue_init(8, &ring, 0));
	for (int i = 0; i < 6; i++) {
		iov[i].iov_base = area + 2 * i * PAGE;
		iov[i].iov_len = PAGE;
	}
	sqe = get_sqe(&ring);
	io_uring_prep_readv(sqe, a[0], iov, 6, 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READV submitted");

	if (SYS(pread(fd, area + 10 * PAGE, PAGE, 0)) != PAGE)	/* the bug */
		fail("pread: short");

	feed(a[1], 100, 1);
	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != 100)
		fail("READV: user_data=%llu res=%d", (unsigned long long)c.user_data, c.res);
	io_uring_queue_exit(&ring);
	return 0;
}
