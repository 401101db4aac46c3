/* uringcheck-test: expect=left-in-flight */
/*
 * Look-alike for stack-inflight: a helper inlined into main submits a
 * READ from an empty pipe into an array of main's frame, and main
 * returns with it in flight. The frame is left, but the next system call
 * is the process's own teardown (exit_group), where the kernel cancels
 * every request: a left-in-flight warning (as liburing's file-register
 * test does), not a stack-inflight error. stdout is not written, so no
 * exit handler flushes it with a system call before.
 */
#include "uc_test.h"

int main(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	char buf[64];
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");
	return 0;	/* the ring is never exited: the kernel cancels at exit */
}
