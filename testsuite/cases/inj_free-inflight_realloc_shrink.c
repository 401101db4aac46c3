/* uringcheck-test: expect=free-inflight match="realloc\(\) shrinking heap chunk .* 7160 bytes of it" */
/*
 * A READ of 8 KiB from an empty pipe into an 8 KiB malloc() chunk is in
 * flight when realloc() shrinks the chunk to 1 KiB. glibc shrinks it in
 * place and frees the tail as a chunk of its own: the READ's last 7 KiB
 * are released under it. free-inflight (the tail only, from the new
 * chunk's header).
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
	char *buf, *guard, *small;
	uintptr_t was;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	buf = malloc(8192);
	guard = malloc(64);
	if (!buf || !guard)
		fail("malloc");

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, 8192, 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");

	was = (uintptr_t)buf;
	small = realloc(buf, 1024);
	if ((uintptr_t)small != was)
		fail("realloc moved the chunk; the test needs a shrink in place");

	feed(a[1], 100, 1);
	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != 100)
		fail("READ: user_data=%llu res=%d, expected 100",
		     (unsigned long long)c.user_data, c.res);

	free(small);
	free(guard);
	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
