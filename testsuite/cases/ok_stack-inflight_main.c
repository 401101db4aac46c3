/* uringcheck-test: expect=clean */
/*
 * Look-alike: a READ into an array in main's frame, in flight while main
 * calls deeper functions that make system calls, and main itself makes
 * some: main's frame is live the whole time, every stack pointer seen is
 * below or beside the array, never above it.
 */
#include "uc_test.h"
#include <sys/syscall.h>

static __attribute__((noinline)) void deeper(int n)
{
	volatile char pad[512];

	pad[0] = n;
	syscall(SYS_getppid);
	if (n > 0)
		deeper(n - 1);
	(void)pad[0];
}

int main(void)
{
	char buf[4096];
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");
	deeper(8);
	syscall(SYS_getppid);
	feed(a[1], 100, 5);
	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != 100)
		fail("READ: res=%d", c.res);
	io_uring_queue_exit(&ring);
	return buf[3] == 256;
}
