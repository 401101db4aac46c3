/* uringcheck-test: expect=clean */
/*
 * Look-alike: a READ into a local array of a function that is still
 * running (it waits for the READ afterwards), while a signal handler runs
 * on a sigaltstack and makes system calls. The alternate stack is an
 * array in main's frame: in the thread's own stack mapping, above the
 * READ's array, so the handler's stack pointer is above it too; but it
 * is the handler's stack, not the thread's frames, and the frame holding
 * the array is only interrupted.
 */
#include "uc_test.h"
#include <signal.h>
#include <sys/syscall.h>

static struct io_uring ring;
static int p[2];
static volatile sig_atomic_t handled;

static void handler(int sig)
{
	syscall(SYS_getppid);
	syscall(SYS_getppid);
	handled = 1;
}

static __attribute__((noinline)) int read_interrupted(void)
{
	char buf[4096];
	struct io_uring_sqe *sqe = get_sqe(&ring);
	struct cqe_copy c;

	io_uring_prep_read(sqe, p[0], buf, sizeof(buf), 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");
	SYS(raise(SIGUSR1));		/* the handler runs on the alt stack */
	if (!handled)
		fail("the handler did not run");
	feed(p[1], 100, 9);
	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != 100)
		fail("READ: res=%d", c.res);
	return buf[1];
}

int main(void)
{
	static char unused;
	char alt[64 * 1024];	/* in main's frame, above read_interrupted's */
	struct sigaction sa;
	stack_t ss;
	int v;

	ss.ss_sp = alt;
	ss.ss_size = sizeof(alt);
	ss.ss_flags = 0;
	SYS(sigaltstack(&ss, NULL));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_ONSTACK;
	SYS(sigaction(SIGUSR1, &sa, NULL));
	SYS(pipe(p));
	URING(io_uring_queue_init(8, &ring, 0));
	v = read_interrupted();
	io_uring_queue_exit(&ring);
	return v == 256 + unused;
}
