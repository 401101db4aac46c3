/* uringcheck-test: expect=munmap-inflight */
/*
 * IORING_SETUP_SQPOLL ring: the READ is issued (and later retried) by the
 * kernel SQ thread. A READ from an empty pipe into a 1-page anonymous
 * mapping; we wait until the SQ thread has consumed the SQE plus 50 ms, then
 * munmap() the page under the in-flight request: munmap-inflight. The READ
 * then completes with -EFAULT (100 is accepted too).
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

static void wait_sq_consumed(struct io_uring *ring)
{
	for (int i = 0; io_uring_sq_ready(ring); i++) {
		if (i >= 2000)
			fail("SQ thread did not consume the SQEs within 2 s");
		usleep(1000);
	}
	usleep(50 * 1000);
}

int main(void)
{
	struct io_uring_params prm = { .flags = IORING_SETUP_SQPOLL, .sq_thread_idle = 2000 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	char *p;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init_params(8, &ring, &prm));
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		fail("mmap: %s", strerror(errno));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], p, PAGE, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	wait_sq_consumed(&ring);
	require_no_cqe(&ring, "READ consumed by the SQ thread");

	SYS(munmap(p, PAGE));
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
