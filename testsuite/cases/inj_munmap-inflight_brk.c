/* uringcheck-test: expect=munmap-inflight match="munmap-inflight: brk" */
/*
 * What free() does when it trims the top of the heap: the break moves
 * down over memory an in-flight request holds. The program grows the
 * heap by two pages with sbrk(), starts a READ from an empty pipe into
 * the upper page, and gives both pages back with sbrk(-2 pages) while
 * the READ is in flight: munmap-inflight, with brk named as the call.
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
	/* Page-align the break first, then take two pages above it. */
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

	if (sbrk(-2 * PAGE) == (void *)-1)	/* the heap trimmed under it */
		fail("sbrk(-): %s", strerror(errno));
	require_no_cqe(&ring, "heap trimmed");

	feed(a[1], 100, 1);
	c = wait_one(&ring);
	if (c.user_data != 0 || (c.res != 100 && c.res != -EFAULT))
		fail("READ: user_data=%llu res=%d", (unsigned long long)c.user_data, c.res);

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
