/* uringcheck-test: expect=clean */
/*
 * Look-alike of inj_free-inflight_malloc: a READ fills all of chunk A's
 * usable bytes (malloc_usable_size) while the chunks right before and
 * right after it, and a chunk elsewhere, are freed and allocated again.
 * Their extents (from their headers) end where A's begin and begin where
 * A's end: nothing the READ holds is released.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "uc_test.h"

/* ---- end of common helpers ---- */

int main(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	char *before, *buf, *after, *other;
	size_t n;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	before = malloc(256);
	buf = malloc(4096);
	after = malloc(256);
	other = malloc(100000);
	if (!before || !buf || !after || !other)
		fail("malloc");
	n = malloc_usable_size(buf);

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, n, 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");

	free(before);
	free(after);
	free(other);
	other = realloc(malloc(64), 8192);
	free(other);
	before = malloc(256);
	free(before);

	feed(a[1], 100, 1);
	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != 100)
		fail("READ: user_data=%llu res=%d, expected 100",
		     (unsigned long long)c.user_data, c.res);
	free(buf);
	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
