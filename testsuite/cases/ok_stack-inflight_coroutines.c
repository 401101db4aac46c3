/* uringcheck-test: expect=clean */
/*
 * Look-alike: two ucontext coroutines whose stacks share one mmap region,
 * A's below B's. A submits a READ into an array on its own stack and
 * suspends itself (swapcontext, no return); B, at higher addresses of the
 * same region, makes system calls, and so does main on the thread's own
 * stack, above both. A's frame is suspended, not gone: only the thread's
 * own stack is judged, and the region is not it. A then resumes, wakes
 * its READ and waits for it.
 */
#include "uc_test.h"
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>

#define CO_STACK	(64 * 1024)

static ucontext_t main_ctx, a_ctx, b_ctx;
static struct io_uring ring;
static int p[2];

static void coroutine_a(void)
{
	char buf[4096];
	struct io_uring_sqe *sqe = get_sqe(&ring);
	struct cqe_copy c;

	io_uring_prep_read(sqe, p[0], buf, sizeof(buf), 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");
	swapcontext(&a_ctx, &b_ctx);	/* suspended, buf still live */
	feed(p[1], 100, 7);
	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != 100)
		fail("READ: res=%d", c.res);
}

static void coroutine_b(void)
{
	for (int i = 0; i < 4; i++)
		syscall(SYS_getppid);	/* above A's buf, in the same region */
	swapcontext(&b_ctx, &main_ctx);
}

int main(void)
{
	char *region;

	SYS(pipe(p));
	URING(io_uring_queue_init(8, &ring, 0));
	region = mmap(NULL, 2 * CO_STACK, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		fail("mmap: %s", strerror(errno));

	SYS(getcontext(&a_ctx));
	a_ctx.uc_stack.ss_sp = region;			/* the lower half */
	a_ctx.uc_stack.ss_size = CO_STACK;
	a_ctx.uc_link = &main_ctx;
	makecontext(&a_ctx, coroutine_a, 0);
	SYS(getcontext(&b_ctx));
	b_ctx.uc_stack.ss_sp = region + CO_STACK;	/* the upper half */
	b_ctx.uc_stack.ss_size = CO_STACK;
	b_ctx.uc_link = &main_ctx;
	makecontext(&b_ctx, coroutine_b, 0);

	SYS(swapcontext(&main_ctx, &a_ctx));	/* A runs, then B, back here */
	syscall(SYS_getppid);			/* main, A still suspended */
	SYS(swapcontext(&main_ctx, &a_ctx));	/* A finishes its READ */
	io_uring_queue_exit(&ring);
	munmap(region, 2 * CO_STACK);
	return 0;
}
