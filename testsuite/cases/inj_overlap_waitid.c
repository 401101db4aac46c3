/* uringcheck-test: expect=overlap */
/*
 * A WAITID (v6.7+) for a child that has not exited yet, its siginfo in
 * buf, and a READ from an empty pipe into the same buf: both in flight at
 * once, both store into buf (the siginfo when the child exits, the data
 * when the pipe is written): overlap. liburing 2.3 has no prep helper for
 * WAITID, so the SQE is filled by hand (io_uring/waitid.c's prep).
 */
#include "uc_test.h"

#include <signal.h>
#include <sys/wait.h>

static char buf[4096] __attribute__((aligned(4096)));

int main(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int p[2], go[2], want[2];
	pid_t child;

	SYS(pipe(p));
	SYS(pipe(go));
	child = SYS(fork());
	if (!child) {
		char c;

		close(go[1]);
		(void)!read(go[0], &c, 1);	/* until the parent says */
		_exit(3);
	}
	close(go[0]);
	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	sqe = get_sqe(&ring);
	io_uring_prep_rw(50 /* IORING_OP_WAITID */, sqe, child, NULL, P_PID, 0);
	sqe->file_index = WEXITED;
	sqe->addr2 = (unsigned long)buf;
	sqe->user_data = 1;
	submit_exact(&ring, 2);
	require_no_cqe(&ring, "the READ and the WAITID submitted");

	feed(p[1], 100, 1);
	SYS(write(go[1], "x", 1));
	want[0] = 100;
	want[1] = 0;
	reap(&ring, want, 2);
	io_uring_queue_exit(&ring);
	return 0;
}
