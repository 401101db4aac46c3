/* uringcheck-test: expect=overlap */
/*
 * A READ from an empty pipe into buf, then an FGETXATTR whose value goes
 * into the same buf while the READ is still in flight: both store into
 * buf (the xattr value in an io-wq worker, the data when the pipe is
 * written): overlap. The SQE is filled by hand (io_uring/xattr.c's prep).
 */
#include "uc_test.h"

#include <sys/xattr.h>

static char buf[4096] __attribute__((aligned(4096)));

int main(void)
{
	static const char name[] = "user.uringcheck";
	char path[] = "./uc-xattr-XXXXXX";
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int p[2], fd, want[2];

	SYS(pipe(p));
	fd = SYS(mkstemp(path));
	if (fsetxattr(fd, name, "value", 5, 0)) {
		unlink(path);
		fail("fsetxattr: %s (this filesystem keeps no user xattrs)", strerror(errno));
	}
	unlink(path);
	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "the READ submitted");
	sqe = get_sqe(&ring);
	io_uring_prep_rw(IORING_OP_FGETXATTR, sqe, fd, name, 64, (unsigned long)buf);
	sqe->user_data = 1;
	submit_exact(&ring, 1);

	feed(p[1], 100, 1);
	want[0] = 100;
	want[1] = 5;
	reap(&ring, want, 2);
	io_uring_queue_exit(&ring);
	return 0;
}
