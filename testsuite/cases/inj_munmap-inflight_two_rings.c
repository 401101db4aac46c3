/* uringcheck-test: expect=munmap-inflight */
/*
 * Two rings. Ring 1 has a READ from an empty pipe into a static buffer in
 * flight (never affected). Ring 2 has a READ from another empty pipe into a
 * 1-page anonymous mapping in flight. The mapping is munmap()ed while both
 * are pending: munmap-inflight (ring 2's request; the check is per process,
 * not per ring). Ring 1's READ completes with 100, ring 2's with -EFAULT
 * (100 accepted too).
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

static char buf[4096] __attribute__((aligned(4096)));

int main(void)
{
	const int want1[1] = { 100 };
	struct io_uring_sqe *sqe;
	struct io_uring r1, r2;
	struct cqe_copy c;
	int a[2], b[2];
	char *p;

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &r1, 0));
	URING(io_uring_queue_init(8, &r2, 0));
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		fail("mmap: %s", strerror(errno));

	sqe = get_sqe(&r1);
	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	submit_exact(&r1, 1);
	sqe = get_sqe(&r2);
	io_uring_prep_read(sqe, b[0], p, PAGE, 0);
	sqe->user_data = 0;
	submit_exact(&r2, 1);
	require_no_cqe(&r1, "ring 1 READ submitted");
	require_no_cqe(&r2, "ring 2 READ submitted");

	SYS(munmap(p, PAGE));			/* under ring 2's READ */
	require_no_cqe(&r2, "buffer unmapped");

	feed(a[1], 100, 1);
	reap(&r1, want1, 1);
	feed(b[1], 200, 2);
	c = wait_one(&r2);
	if (c.user_data != 0 || (c.res != 200 && c.res != -EFAULT))
		fail("ring 2 READ: user_data=%llu res=%d, expected 200 or -EFAULT",
		     (unsigned long long)c.user_data, c.res);

	io_uring_queue_exit(&r1);
	io_uring_queue_exit(&r2);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 0;
}
