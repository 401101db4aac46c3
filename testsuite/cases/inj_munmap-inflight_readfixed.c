/* uringcheck-test: expect=munmap-inflight */
/*
 * A 2-page anonymous mapping is registered as buffer index 0. A READ_FIXED
 * of its first page from an empty pipe is in flight when the whole mapping
 * is munmap()ed. The kernel keeps the registered pages pinned, so the READ
 * still completes with 100 (into pages the program can no longer see), but
 * the in-flight range was unmapped: munmap-inflight. The buffers are
 * unregistered after the CQE is reaped.
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
	struct iovec reg;
	char *p;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		fail("mmap: %s", strerror(errno));
	reg = (struct iovec){ .iov_base = p, .iov_len = 2 * PAGE };
	URING(io_uring_register_buffers(&ring, &reg, 1));

	sqe = get_sqe(&ring);
	io_uring_prep_read_fixed(sqe, a[0], p, PAGE, 0, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ_FIXED submitted");

	SYS(munmap(p, 2 * PAGE));
	require_no_cqe(&ring, "registered mapping removed");

	feed(a[1], 100, 1);
	reap(&ring, want, 1);

	URING(io_uring_unregister_buffers(&ring));
	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
