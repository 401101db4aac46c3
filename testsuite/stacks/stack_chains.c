/*
 * Learned copy bounds (checker/stack_bounds.h) against call chains that
 * share a call site (testsuite/run.sh, "stacks: one call site, other
 * callers"). Reads into buf from empty pipes stay in flight; each is
 * submitted by submit_one (one io_uring_enter: the same ip), reached
 * through via_a or via_b, whose frames have the same size, so the
 * enter's sp is the same each time, and a second apart, so the checker
 * has learned what it learns from one capture before the next is taken
 * (300 ms was not always enough on a loaded CI runner, with the reader at
 * its own priority too):
 *   1. via_a, its locals filled with 'a'        (SITE:a1; only noted)
 *   2. via_b: another return address, other locals (SITE:b; learned:
 *      its bound, and its frames kept with their deciders)
 *   3. via_a again, its locals filled with 'c'  (SITE:a2; copied up to
 *      the bound: its deciders are not via_b's)
 * Each read overlaps the ones in flight: the reports must name via_b
 * and via_a at the lines they were called from, never one for the
 * other.
 */
#include "../cases/uc_test.h"

static char buf[4096];
static struct io_uring ring;
static int pipes[3][2];

static __attribute__((noinline)) void submit_one(int n)
{
	struct io_uring_sqe *sqe = get_sqe(&ring);

	io_uring_prep_read(sqe, pipes[n][0], buf, sizeof(buf), 0);
	sqe->user_data = n;
	URING(io_uring_submit(&ring));
}

/* Not merged by the compiler (other constants), the same frame size. */
static __attribute__((noinline)) void via_a(int n, char fill)
{
	volatile char loc[512];

	memset((char *)loc, fill, sizeof(loc));
	submit_one(n);
	loc[n] = 1;
}

static __attribute__((noinline)) void via_b(int n, char fill)
{
	volatile char loc[512];

	memset((char *)loc, fill ^ 0x55, sizeof(loc));
	submit_one(n);
	loc[n] = 2;
}

int main(void)
{
	const int want[3] = { 10, 20, 30 };

	for (int i = 0; i < 3; i++)
		SYS(pipe(pipes[i]));
	URING(io_uring_queue_init(8, &ring, 0));
	via_a(0, 'a'); /* SITE:a1 */
	usleep(1000000);
	via_b(1, 'b'); /* SITE:b */
	usleep(1000000);
	via_a(2, 'c'); /* SITE:a2 */
	feed(pipes[0][1], 10, 0);
	feed(pipes[1][1], 20, 1);
	feed(pipes[2][1], 30, 2);
	reap(&ring, want, 3);
	io_uring_queue_exit(&ring);
	return 0;
}
