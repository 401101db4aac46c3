/* uringcheck-test: expect=overlap match="both published by one io_uring_submit call" */
/*
 * SQPOLL ring: the kernel's SQ thread submits, so the requests' stack is
 * the one of the program's io_uring_submit call that published them
 * (bpf/sqpoll_stacks.bpf.h). Two READs from two empty pipes into one
 * buffer, published by one call in submit_reads(): the overlap names that
 * call for both (testsuite/suppressions/sqpoll_stack.supp suppresses it by
 * that site). The case waits for the probe first (uc_test.h).
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

static char buf[4096] __attribute__((aligned(4096)));

static void __attribute__((noinline)) submit_reads(struct io_uring *ring, int a, int b)
{
	struct io_uring_sqe *sqe;

	sqe = get_sqe(ring);
	io_uring_prep_read(sqe, a, buf, sizeof(buf), 0);
	sqe->user_data = 0;
	sqe = get_sqe(ring);
	io_uring_prep_read(sqe, b, buf + 1024, 1024, 0);
	sqe->user_data = 1;
	submit_exact(ring, 2);
}

int main(void)
{
	const int want[2] = { 100, 200 };
	struct io_uring_params p = { .flags = IORING_SETUP_SQPOLL, .sq_thread_idle = 2000 };
	struct io_uring ring;
	int a[2], b[2];

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init_params(8, &ring, &p));
	wait_submit_probed();

	submit_reads(&ring, a[0], b[0]);
	for (int i = 0; io_uring_sq_ready(&ring); i++) {
		if (i >= 2000)
			fail("SQ thread did not consume the SQEs within 2 s");
		usleep(1000);
	}
	usleep(50 * 1000);
	require_no_cqe(&ring, "both READs consumed by the SQ thread");

	feed(a[1], 100, 1);
	feed(b[1], 200, 2);
	reap(&ring, want, 2);

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 0;
}
