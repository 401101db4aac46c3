/* uringcheck-test: expect=munmap-inflight */
/*
 * A READ from an empty pipe into a 1-page anonymous mmap()ed buffer is in
 * flight (poll armed; the copy to user memory happens only when data
 * arrives) when the whole page is munmap()ed: munmap-inflight. The pipe is
 * then written; the READ's copy now hits an unmapped address, so it
 * completes with -EFAULT (100 is accepted too, but 6.18 gives -EFAULT).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "uc_test.h"

/* ---- end of common helpers ---- */
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
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		fail("mmap: %s", strerror(errno));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], p, PAGE, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");

	SYS(munmap(p, PAGE));			/* the whole in-flight buffer */
	require_no_cqe(&ring, "buffer unmapped");

	feed(a[1], 100, 1);
	c = wait_one(&ring);
	if (c.user_data != 0 || (c.res != 100 && c.res != -EFAULT))
		fail("READ: user_data=%llu res=%d, expected 100 or -EFAULT",
		     (unsigned long long)c.user_data, c.res);

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
