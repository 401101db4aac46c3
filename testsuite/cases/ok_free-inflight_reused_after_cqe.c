/* uringcheck-test: expect=clean options=--heap-alloc-probes */
/*
 * Look-alike of inj_free-inflight_new_owner: chunk A's READ has
 * completed when A is freed, and malloc then hands A out again: legal,
 * the kernel is done with it. Two more READs into the chunks right
 * before and after A stay in flight meanwhile, so A's free is sent and
 * judged (inside the span the kernel side keeps) and its watch armed:
 * the allocation that takes A back may meet it, and must stay silent.
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

int main(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	char *before, *a_buf, *after, *guard, *again;
	int a[2], b[2];
	uintptr_t was;

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &ring, 0));
	before = malloc(4096);
	a_buf = malloc(4096);
	after = malloc(4096);
	guard = malloc(32);
	if (!before || !a_buf || !after || !guard)
		fail("malloc");

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, b[0], before, 4096, 0);
	sqe->user_data = 1;
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, b[0], after, 4096, 0);
	sqe->user_data = 2;
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], a_buf, 4096, 0);
	sqe->user_data = 3;
	submit_exact(&ring, 3);
	require_no_cqe(&ring, "READs submitted");

	feed(a[1], 100, 3);
	c = wait_one(&ring);
	if (c.user_data != 3 || c.res != 100)
		fail("READ A: user_data=%llu res=%d", (unsigned long long)c.user_data, c.res);
	was = (uintptr_t)a_buf;
	free(a_buf);			/* its READ is over */
	again = malloc(4096);
	if ((uintptr_t)again != was)
		fail("malloc did not hand A out again (%p, 0x%lx)", (void *)again,
		     (unsigned long)was);
	memset(again, 'N', 4096);

	feed(b[1], 100, 1);
	c = wait_one(&ring);
	feed(b[1], 100, 2);
	c = wait_one(&ring);
	(void)c;
	if (again[0] != 'N')
		fail("the new object was overwritten");

	free(again);
	free(before);
	free(after);
	free(guard);
	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 0;
}
