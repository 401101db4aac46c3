/* uringcheck-test: expect=clean */
/*
 * Look-alike of inj_stack-inflight_return: the function that submits a
 * READ into its local array waits for the READ's CQE before it returns,
 * then its caller makes system calls from higher up: the array's bytes
 * were in a live frame for as long as the kernel used them.
 */
#include "uc_test.h"
#include <sys/syscall.h>

static struct io_uring ring;
static int a[2];

static __attribute__((noinline)) int read_and_wait(void)
{
	char buf[4096];
	struct io_uring_sqe *sqe = get_sqe(&ring);
	struct cqe_copy c;

	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");
	syscall(SYS_getppid);		/* deeper than buf: still its frame */
	feed(a[1], 100, 3);
	c = wait_one(&ring);		/* waits before returning */
	if (c.user_data != 1 || c.res != 100)
		fail("READ: res=%d", c.res);
	return buf[7];
}

int main(void)
{
	int v;

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	v = read_and_wait();
	syscall(SYS_getppid);		/* above the old frame: fine now */
	io_uring_queue_exit(&ring);
	return v == 256;
}
