/* uringcheck-test: expect=stack-inflight match="#[0-9]+ 0x[0-9a-f]+ in start_read testsuite/cases/inj_stack-inflight_return.c" */
/*
 * A function submits a READ from an empty pipe into a local array and
 * returns without waiting for it; its caller then makes a system call
 * from a frame above that array: the array belongs to no live frame any
 * more, and the next calls reuse it while the kernel may still store
 * into it. The READ is cancelled (not completed: its data would land in
 * the caller's frames) before the ring is torn down.
 */
#include "uc_test.h"
#include <sys/syscall.h>

static struct io_uring ring;
static int a[2];

/* noinline: its frame is its own, below main's. */
static __attribute__((noinline)) void start_read(void)
{
	char buf[4096];
	struct io_uring_sqe *sqe = get_sqe(&ring);

	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");
	/* the bug: returns while the READ still owns buf */
}

static __attribute__((noinline)) void after_return(void)
{
	syscall(SYS_getppid);	/* the frame is seen gone here */
}

int main(void)
{
	struct io_uring_sqe *sqe;
	struct cqe_copy c;

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	start_read();
	after_return();

	sqe = get_sqe(&ring);
	io_uring_prep_cancel64(sqe, 1, 0);
	sqe->user_data = 2;
	submit_exact(&ring, 1);
	for (int i = 0; i < 2; i++) {
		c = wait_one(&ring);
		if (c.user_data == 1 && c.res != -ECANCELED)
			fail("READ: res=%d, expected -ECANCELED", c.res);
	}
	io_uring_queue_exit(&ring);
	return 0;
}
