/* uringcheck-test: expect=clean */
/*
 * The legal look-alike of inj_munmap-inflight_mmap_fixed: a READ is in
 * flight into the first page of a two-page mapping while the program maps
 * a fresh page over the *second* page with mmap(MAP_FIXED); then, after
 * the READ's CQE was reaped, over the first page too. Neither replaces
 * memory a request holds while it holds it: silent.
 */
#include "uc_test.h"
#include <sys/mman.h>

#define PAGE 4096

int main(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	char *p;
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

	if (mmap(p + PAGE, PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != p + PAGE)
		fail("mmap(MAP_FIXED) next page: %s", strerror(errno));
	require_no_cqe(&ring, "next page replaced");

	feed(a[1], 100, 1);
	c = wait_one(&ring);
	if (c.user_data != 0 || c.res != 100)
		fail("READ: user_data=%llu res=%d", (unsigned long long)c.user_data, c.res);
	/* Reaped: the page is the program's again. */
	if (mmap(p, PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != p)
		fail("mmap(MAP_FIXED) after reap: %s", strerror(errno));

	io_uring_queue_exit(&ring);
	munmap(p, 2 * PAGE);
	close(a[0]); close(a[1]);
	return 0;
}
