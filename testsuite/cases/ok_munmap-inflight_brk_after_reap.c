/* uringcheck-test: expect=clean */
/*
 * The legal look-alike of inj_munmap-inflight_brk: the heap grows by two
 * pages, a READ fills the upper one, and the break moves back down only
 * after the READ's CQE was reaped; meanwhile it moves up and down above
 * the buffer (growth, and trimming memory nothing holds). Silent.
 */
#include "uc_test.h"

#define PAGE 4096

int main(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	char *top, *p;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	top = sbrk(0);
	if (sbrk(PAGE - ((uintptr_t)top & (PAGE - 1))) == (void *)-1)
		fail("sbrk: %s", strerror(errno));
	p = sbrk(2 * PAGE);
	if (p == (void *)-1)
		fail("sbrk: %s", strerror(errno));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], p + PAGE, 512, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");

	/* Above the buffer: grow, then trim back to where it was. */
	if (sbrk(4 * PAGE) == (void *)-1 || sbrk(-4 * PAGE) == (void *)-1)
		fail("sbrk above: %s", strerror(errno));
	require_no_cqe(&ring, "heap moved above the buffer");

	feed(a[1], 100, 1);
	c = wait_one(&ring);
	if (c.user_data != 0 || c.res != 100)
		fail("READ: user_data=%llu res=%d", (unsigned long long)c.user_data, c.res);
	if (sbrk(-2 * PAGE) == (void *)-1)	/* reaped: the heap may shrink */
		fail("sbrk(-): %s", strerror(errno));

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
