/* uringcheck-test: expect=dropped match="1 SQE discarded without running" */
/*
 * The program puts an index past the ring's end into the SQ array: the
 * kernel discards that entry without running it (sq_dropped rises) and
 * the program would wait for its completion for ever. Dropped by the
 * kernel: an error.
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
	unsigned tail;

	URING(io_uring_queue_init(8, &ring, 0));
	sqe = get_sqe(&ring);
	io_uring_prep_nop(sqe);
	/* What io_uring_submit would publish, with a bad index. */
	tail = *ring.sq.ktail;
	ring.sq.array[tail & *ring.sq.kring_mask] = 1000;
	__atomic_store_n(ring.sq.ktail, tail + 1, __ATOMIC_RELEASE);
	ring.sq.sqe_head = ring.sq.sqe_tail;
	if (io_uring_enter(ring.ring_fd, 1, 0, 0, NULL) < 0)
		fail("io_uring_enter: %s", strerror(errno));
	if (*ring.sq.kdropped != 1)
		fail("sq_dropped is %u, expected 1", *ring.sq.kdropped);
	io_uring_queue_exit(&ring);
	return 0;
}
