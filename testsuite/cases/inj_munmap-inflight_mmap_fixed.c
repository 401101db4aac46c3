/* uringcheck-test: expect=munmap-inflight match="munmap-inflight: mmap[(]MAP_FIXED[)]" */
/*
 * An arena reset: a READ from an empty pipe into a page of an anonymous
 * mapping is in flight when the program maps a fresh anonymous page over
 * the same address with mmap(MAP_FIXED). The old page is gone as surely
 * as with munmap (the kernel's copy, when data arrives, goes to the old
 * pinned page or faults, never to what the program now sees there):
 * munmap-inflight, with mmap(MAP_FIXED) named as the call.
 */
#include "uc_test.h"
#include <sys/mman.h>

#define PAGE 4096

int main(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	char *p, *q;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		fail("mmap: %s", strerror(errno));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], p, PAGE, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");

	/* The arena is reset under the in-flight READ. */
	q = mmap(p, 2 * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (q != p)
		fail("mmap(MAP_FIXED): %s", strerror(errno));
	require_no_cqe(&ring, "buffer replaced");

	feed(a[1], 100, 1);
	c = wait_one(&ring);
	if (c.user_data != 0 || (c.res != 100 && c.res != -EFAULT))
		fail("READ: user_data=%llu res=%d", (unsigned long long)c.user_data, c.res);

	io_uring_queue_exit(&ring);
	munmap(p, 2 * PAGE);
	close(a[0]); close(a[1]);
	return 0;
}
