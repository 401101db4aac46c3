/* uringcheck-test: expect=munmap-inflight */
/*
 * A READ of 8192 bytes from an empty pipe into a 2-page anonymous mapping p
 * is in flight when mremap(MREMAP_MAYMOVE | MREMAP_FIXED) moves the mapping
 * onto a second, previously reserved 2-page area q. The old range p is
 * unmapped by the move, under the in-flight request: munmap-inflight. The
 * READ then completes with -EFAULT (copy to the old, unmapped p; 100 is
 * accepted too).
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
	char *p, *q, *r;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	q = mmap(NULL, 2 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || q == MAP_FAILED)
		fail("mmap: %s", strerror(errno));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], p, 2 * PAGE, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");

	r = mremap(p, 2 * PAGE, 2 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, q);
	if (r != q)
		fail("mremap move: %p (%s)", (void *)r, r == MAP_FAILED ? strerror(errno) : "wrong address");
	require_no_cqe(&ring, "mapping moved");

	feed(a[1], 100, 1);
	c = wait_one(&ring);
	if (c.user_data != 0 || (c.res != 100 && c.res != -EFAULT))
		fail("READ: user_data=%llu res=%d, expected 100 or -EFAULT",
		     (unsigned long long)c.user_data, c.res);

	SYS(munmap(q, 2 * PAGE));
	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
