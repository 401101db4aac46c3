/*
 * Learned copy bounds at their edges (checker/stack_bounds.h;
 * testsuite/run.sh, "stacks: learned bounds at their edges"). Reads into
 * buf from empty pipes, each submitted by submit_one from tramp, which
 * pads its frame with alloca down to one fixed address: the same ip and
 * sp whatever chain led there. The checker learns from a site's second
 * capture (its first is only noted), so the first chain submits twice;
 * a second before the other chain, for the checker to learn.
 *   mode "deep": 40 small frames (small), twice, then 5 frames of 1.2 KiB
 *     (big) at the same sp. The learning unwind stops at the 32 frames a
 *     report prints, not at the outermost frame: nothing is learned
 *     from it, and big's stack is whole (main, SITE:b).
 *   mode "coro": on a coroutine stack of 10 KiB, twice, then on one of
 *     12 KiB over the same memory, at the same sp. The learning
 *     unwind ends at the coroutine's outermost frame and is learned; the
 *     last stack's top lies past that bound: it shows tramp, and
 *     ends early and says so (with --full-stacks: co_b, whole).
 */
#include "../cases/uc_test.h"
#include <alloca.h>
#include <setjmp.h>

#define NOINL __attribute__((noinline, noipa))

static char buf[4096];
static struct io_uring ring;
static int pipes[3][2];
static int next_read;		/* the coroutines' request */
static char *target;		/* where tramp's padding ends */
static char cstack[16384] __attribute__((aligned(64)));
static jmp_buf back;

static NOINL void submit_one(int n)
{
	struct io_uring_sqe *sqe = get_sqe(&ring);

	io_uring_prep_read(sqe, pipes[n][0], buf, sizeof(buf), 0);
	sqe->user_data = n;
	URING(io_uring_submit(&ring));
}

static NOINL void tramp(int n)
{
	char here;
	volatile char *pad = alloca((size_t)(&here - target));

	pad[0] = 1;
	submit_one(n);
	pad[1] = 2;
}

static NOINL void small(int d, int n)
{
	volatile char x[16];

	x[0] = (char)d;
	if (d)
		small(d - 1, n);
	else
		tramp(n);
	x[1] = 0;
}

static NOINL void big(int d, int n)
{
	volatile char x[1200];

	x[0] = (char)d;
	if (d)
		big(d - 1, n);
	else
		tramp(n);
	x[1] = 0;
}

static NOINL void co_a(void)
{
	tramp(next_read++);
	longjmp(back, 1);
}

static NOINL void co_b(void)
{
	tramp(next_read++);
	longjmp(back, 1);
}

/* @fn on a stack of @size at cstack, its return address 0: the outermost
 * frame there, as a coroutine library's entry is; it longjmps back. */
static NOINL void on_coroutine(void (*fn)(void), size_t size)
{
	if (setjmp(back))
		return;
	__asm__ volatile("mov %0, %%rsp\n\tpushq $0\n\tjmp *%1"
			 :: "r"(cstack + size), "r"(fn) : "memory");
	__builtin_unreachable();
}

int main(int argc, char **argv)
{
	const int want[3] = { 10, 20, 30 };
	bool coro = argc > 1 && !strcmp(argv[1], "coro");
	char top;

	for (int i = 0; i < 3; i++)
		SYS(pipe(pipes[i]));
	URING(io_uring_queue_init(8, &ring, 0));
	if (coro) {
		target = cstack + 8192;
		on_coroutine(co_a, 10240); /* SITE:ca */
		usleep(300000);
		on_coroutine(co_a, 10240);
		usleep(1000000);
		on_coroutine(co_b, 12288); /* SITE:cb */
	} else {
		target = &top - 7168;
		small(39, 0); /* SITE:a */
		usleep(300000);
		small(39, 1);
		usleep(1000000);
		big(4, 2); /* SITE:b */
	}
	feed(pipes[0][1], 10, 0);
	feed(pipes[1][1], 20, 1);
	feed(pipes[2][1], 30, 2);
	reap(&ring, want, 3);
	io_uring_queue_exit(&ring);
	return 0;
}
