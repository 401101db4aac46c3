/* uringcheck-test: expect=stack-inflight match="#[0-9]+ 0x[0-9a-f]+ in start_read testsuite/cases/inj_stack-inflight_thread.c" */
/*
 * inj_stack-inflight_return on a pthread: the thread's own stack is the
 * mapping pthread_create made for it (its stack pointer at clone names
 * it). A function of the thread submits a READ into a local array and
 * returns; the thread then makes a system call above it.
 */
#include "uc_test.h"
#include <pthread.h>
#include <sys/syscall.h>

static struct io_uring ring;
static int a[2];

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

static void *worker(void *arg)
{
	struct io_uring_sqe *sqe;
	struct cqe_copy c;

	start_read();
	syscall(SYS_getppid);	/* the frame is seen gone here */

	sqe = get_sqe(&ring);
	io_uring_prep_cancel64(sqe, 1, 0);
	sqe->user_data = 2;
	submit_exact(&ring, 1);
	for (int i = 0; i < 2; i++) {
		c = wait_one(&ring);
		if (c.user_data == 1 && c.res != -ECANCELED)
			fail("READ: res=%d, expected -ECANCELED", c.res);
	}
	return arg;
}

int main(void)
{
	pthread_t t;

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	if (pthread_create(&t, NULL, worker, NULL))
		fail("pthread_create");
	pthread_join(t, NULL);
	io_uring_queue_exit(&ring);
	return 0;
}
