/* uringcheck-test: expect=stack-inflight match="stack pointer at delivery of signal 14 [(]SIGALRM[)]" */
/*
 * inj_stack-inflight_return seen at a signal's delivery: after the
 * function that submitted a READ into its local array returned, the
 * caller makes no system call, it spins until a timer signal arrives;
 * the interrupted stack pointer, above the array, shows the frame gone.
 */
#include "uc_test.h"
#include <signal.h>
#include <sys/time.h>

static struct io_uring ring;
static int a[2];
static volatile sig_atomic_t fired;

static void on_alarm(int sig)
{
	fired = 1;
}

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

int main(void)
{
	struct itimerval it = { .it_value = { .tv_usec = 50000 } };
	struct io_uring_sqe *sqe;
	struct sigaction sa;
	struct cqe_copy c;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	SYS(sigaction(SIGALRM, &sa, NULL));
	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	SYS(setitimer(ITIMER_REAL, &it, NULL));
	start_read();
	while (!fired)
		;		/* no system call: the signal shows the frame gone */

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
