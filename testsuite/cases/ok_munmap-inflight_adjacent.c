/* uringcheck-test: expect=clean */
/*
 * 3-page anonymous mapping; a READ of exactly the middle page from an empty
 * pipe is in flight while page 0 and page 2 (the neighbours on each side)
 * are munmap()ed. No byte of the in-flight range is touched: no hazard. The
 * READ completes with 100 into the middle page, which is unmapped only
 * after the CQE is reaped.
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
	const int want[1] = { 100 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	char expect[100];
	char *p;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	p = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		fail("mmap: %s", strerror(errno));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], p + PAGE, PAGE, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");

	SYS(munmap(p, PAGE));			/* page before */
	SYS(munmap(p + 2 * PAGE, PAGE));	/* page after */
	require_no_cqe(&ring, "neighbour pages unmapped");

	feed(a[1], 100, 1);
	reap(&ring, want, 1);
	pattern(expect, sizeof(expect), 1);
	if (memcmp(p + PAGE, expect, sizeof(expect)))
		fail("READ did not land in the middle page");

	SYS(munmap(p + PAGE, PAGE));		/* after the CQE: fine */
	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
