/*
 * Kept site captures (checker/stack_bounds.h, bpf/stacks.bpf.h) on a
 * call site taken again and again (testsuite/run.sh, "stacks: a site's
 * kept frames"). Reads into buf from empty pipes stay in flight; each is
 * submitted by submit_one (one io_uring_enter: the same ip and sp every
 * time), with other locals and other callee-saved values each time.
 *   phase A: 14 reads through via_a. The first is noted and the second
 *            learned (half a second after each); the others have its
 *            deciders (return addresses) and take its kept frames
 *            instead of a copy.
 *   phase B: 14 reads through via_b, whose frame has the same size: the
 *            same site, another chain. None may take via_a's frames;
 *            after UC_SITE_MISSES of them the site is learned again
 *            from via_b (noted, then learned), and the last ones take
 *            via_b's.
 * Each read overlaps every one in flight: 91 pairs within A, 196 of B
 * over A, 91 within B, whichever frames the checker kept.
 */
#include "../cases/uc_test.h"

#define PER_PHASE 14

static char buf[4096];
static struct io_uring ring;
static int pipes[2 * PER_PHASE][2];

static __attribute__((noinline)) void submit_one(int n)
{
	struct io_uring_sqe *sqe = get_sqe(&ring);

	io_uring_prep_read(sqe, pipes[n][0], buf, sizeof(buf), 0);
	sqe->user_data = n;
	URING(io_uring_submit(&ring));
}

/* Not merged by the compiler (other constants), the same frame size. */
static __attribute__((noinline)) void via_a(int n)
{
	volatile char loc[512];
	/* kept across the call: in a callee-saved register or the frame */
	unsigned long keep = (unsigned long)n * 0x9e3779b97f4a7c15ul;

	memset((char *)loc, n * 37, sizeof(loc));
	submit_one(n);
	loc[n] = (char)(keep >> 56);
	__asm__ volatile("" : : "r"(keep) : "memory");
}

static __attribute__((noinline)) void via_b(int n)
{
	volatile char loc[512];
	unsigned long keep = (unsigned long)n * 0xc2b2ae3d27d4eb4ful;

	memset((char *)loc, n * 91, sizeof(loc));
	submit_one(n);
	loc[n] = (char)(keep >> 48);
	__asm__ volatile("" : : "r"(keep) : "memory");
}

/* One call line for every turn: no branch for the compiler to peel the
 * first turn off by (another return address). The pauses give the
 * checker time to learn a site from the capture before. */
static __attribute__((noinline)) void phase(void (*via)(int), int first, unsigned first_pause)
{
	for (int i = 0; i < PER_PHASE; i++) {
		via(first + i);
		usleep(50000 + (i < 2) * first_pause);
	}
}

int main(void)
{
	int want[2 * PER_PHASE];

	for (int i = 0; i < 2 * PER_PHASE; i++) {
		SYS(pipe(pipes[i]));
		want[i] = 10 + i;
	}
	URING(io_uring_queue_init(64, &ring, 0));
	phase(via_a, 0, 450000);
	phase(via_b, PER_PHASE, 0);
	for (int i = 0; i < 2 * PER_PHASE; i++)
		feed(pipes[i][1], (size_t)want[i], (unsigned)i);
	reap(&ring, want, 2 * PER_PHASE);
	io_uring_queue_exit(&ring);
	return 0;
}
