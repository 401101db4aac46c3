/* uringcheck-test: expect=clean */
/*
 * The legal look-alikes of inj_bufreg-unmapped_munmap: memory next to a
 * registered buffer is unmapped while it is registered; the buffer's own
 * memory only after IORING_UNREGISTER_BUFFERS; and a second ring's
 * buffer only after that ring was closed (closing unregisters). Silent.
 */
#include "uc_test.h"
#include <sys/mman.h>

#define PAGE 4096

int main(void)
{
	struct io_uring ring, ring2;
	struct io_uring_sqe *sqe;
	struct iovec iov;
	struct cqe_copy c;
	char *p;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	URING(io_uring_queue_init(8, &ring2, 0));
	p = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		fail("mmap: %s", strerror(errno));
	iov = (struct iovec){ .iov_base = p, .iov_len = PAGE };
	URING(io_uring_register_buffers(&ring, &iov, 1));
	iov = (struct iovec){ .iov_base = p + 2 * PAGE, .iov_len = PAGE };
	URING(io_uring_register_buffers(&ring2, &iov, 1));

	feed(a[1], 100, 1);
	sqe = get_sqe(&ring);
	io_uring_prep_read_fixed(sqe, a[0], p, PAGE, 0, 0);
	submit_exact(&ring, 1);
	c = wait_one(&ring);
	if (c.res != 100)
		fail("READ_FIXED: res=%d", c.res);

	SYS(munmap(p + PAGE, PAGE));		/* between the two buffers */
	URING(io_uring_unregister_buffers(&ring));
	SYS(munmap(p, PAGE));			/* unregistered first */
	io_uring_queue_exit(&ring2);
	SYS(munmap(p + 2 * PAGE, PAGE));	/* its ring is closed */

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
