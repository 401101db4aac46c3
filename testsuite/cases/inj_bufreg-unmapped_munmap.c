/* uringcheck-test: expect=bufreg-unmapped status=0 match="bufreg-unmapped: munmap of .* releases 4096 bytes of registered buffer 1 of ring fd [0-9]+" */
/*
 * Two anonymous pages are registered as buffers 0 and 1 and used by a
 * READ_FIXED each (reaped). The program then unmaps the page behind
 * buffer 1 while it stays registered, and maps a fresh page at the same
 * address: the kernel still holds the old page pinned, so the next
 * READ_FIXED on index 1 stores into memory the program no longer sees
 * (checked: the new page stays zero). bufreg-unmapped, a warning: the
 * program's own status (0) is kept.
 */
#include "uc_test.h"
#include <sys/mman.h>

#define PAGE 4096

static void read_fixed(struct io_uring *ring, int fd, char *buf, int index, int want)
{
	struct io_uring_sqe *sqe = get_sqe(ring);
	struct cqe_copy c;

	io_uring_prep_read_fixed(sqe, fd, buf, PAGE, 0, index);
	sqe->user_data = index;
	submit_exact(ring, 1);
	c = wait_one(ring);
	if (c.res != want)
		fail("READ_FIXED %d: res=%d, expected %d", index, c.res, want);
}

int main(void)
{
	struct io_uring ring;
	struct iovec iov[2];
	char *p;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		fail("mmap: %s", strerror(errno));
	iov[0] = (struct iovec){ .iov_base = p, .iov_len = PAGE };
	iov[1] = (struct iovec){ .iov_base = p + PAGE, .iov_len = PAGE };
	URING(io_uring_register_buffers(&ring, iov, 2));

	feed(a[1], 100, 1);
	read_fixed(&ring, a[0], p, 0, 100);
	feed(a[1], 100, 2);
	read_fixed(&ring, a[0], p + PAGE, 1, 100);

	/* Buffer 1's memory goes away while it stays registered. */
	SYS(munmap(p + PAGE, PAGE));
	if (mmap(p + PAGE, PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != p + PAGE)
		fail("mmap again: %s", strerror(errno));
	feed(a[1], 100, 3);
	read_fixed(&ring, a[0], p + PAGE, 1, 100);
	if (p[PAGE] != 0)
		fail("the READ_FIXED reached the new page: the kernel did not keep the old one");

	io_uring_queue_exit(&ring);
	munmap(p, 2 * PAGE);
	close(a[0]); close(a[1]);
	return 0;
}
