/* uringcheck-test: expect=clean */
/*
 * Look-alikes of the WAITID and xattr overlaps that must stay silent:
 *  - a WAITID whose siginfo sits right after the READ's buffer (they
 *    touch, share no byte);
 *  - an FGETXATTR into the READ's buffer once the READ has completed
 *    (before its CQE is reaped: completion is what ends it);
 *  - an FSETXATTR whose value is the READ's buffer while the READ is in
 *    flight: the value is copied at submission, nothing is held.
 */
#include "uc_test.h"

#include <signal.h>
#include <sys/wait.h>
#include <sys/xattr.h>

static char buf[2 * 4096] __attribute__((aligned(4096)));

int main(void)
{
	static const char name[] = "user.uringcheck";
	char path[] = "./uc-xattr-XXXXXX";
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int p[2], go[2], fd, want[4];
	pid_t child;

	SYS(pipe(p));
	SYS(pipe(go));
	fd = SYS(mkstemp(path));
	if (fsetxattr(fd, name, "value", 5, 0)) {
		unlink(path);
		fail("fsetxattr: %s (this filesystem keeps no user xattrs)", strerror(errno));
	}
	unlink(path);
	child = SYS(fork());
	if (!child) {
		char c;

		close(go[1]);
		(void)!read(go[0], &c, 1);
		_exit(0);
	}
	close(go[0]);
	URING(io_uring_queue_init(8, &ring, 0));

	/* READ into [0, 4096), WAITID's siginfo at 4096, FSETXATTR from buf */
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], buf, 4096, 0);
	sqe->user_data = 0;
	sqe = get_sqe(&ring);
	io_uring_prep_rw(50 /* IORING_OP_WAITID */, sqe, child, NULL, P_PID, 0);
	sqe->file_index = WEXITED;
	sqe->addr2 = (unsigned long)(buf + 4096);
	sqe->user_data = 1;
	memcpy(buf, "other", 5);
	sqe = get_sqe(&ring);
	io_uring_prep_rw(IORING_OP_FSETXATTR, sqe, fd, name, 5, (unsigned long)buf);
	sqe->user_data = 2;
	submit_exact(&ring, 3);
	{
		struct cqe_copy c = wait_one(&ring);	/* the FSETXATTR */

		if (c.user_data != 2 || c.res != 0)
			fail("fsetxattr: user_data %llu res %d",
			     (unsigned long long)c.user_data, c.res);
	}
	feed(p[1], 100, 1);
	SYS(write(go[1], "x", 1));
	usleep(100 * 1000);		/* both complete; CQEs not reaped yet */
	sqe = get_sqe(&ring);
	io_uring_prep_rw(IORING_OP_FGETXATTR, sqe, fd, name, 64, (unsigned long)buf);
	sqe->user_data = 2;
	submit_exact(&ring, 1);
	want[0] = 100;
	want[1] = 0;
	want[2] = 5;
	reap(&ring, want, 3);
	io_uring_queue_exit(&ring);
	return 0;
}
