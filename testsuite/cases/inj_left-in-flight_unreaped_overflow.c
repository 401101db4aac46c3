/* uringcheck-test: expect=left-in-flight */
/*
 * Ring with a 4-entry CQ (IORING_SETUP_CQSIZE). 16 NOPs are submitted
 * without reaping, so 4 CQEs sit in the CQ ring and 12 on the kernel's
 * overflow list (IORING_SQ_CQ_OVERFLOW set). The program consumes the 4 in
 * the ring with io_uring_peek_cqe (pure userspace, never flushes the
 * overflow list), then calls io_uring_queue_exit(): the 12 overflowed CQEs
 * were posted by the kernel but never reaped: unreaped-cqe. Nothing is in
 * flight, so nothing is dropped.
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

#define N 16

int main(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE, .cq_entries = 4 };
	struct io_uring_cqe *cqe;
	struct io_uring ring;

	URING(io_uring_queue_init_params(4, &ring, &p));
	if (ring.cq.ring_entries != 4)
		fail("CQ has %u entries, expected 4", ring.cq.ring_entries);

	for (int i = 0; i < N; i += 4) {
		for (int j = i; j < i + 4; j++) {
			struct io_uring_sqe *sqe = get_sqe(&ring);

			io_uring_prep_nop(sqe);
			sqe->user_data = j;
		}
		submit_exact(&ring, 4);
	}
	if (io_uring_cq_ready(&ring) != 4 || !io_uring_cq_has_overflow(&ring))
		fail("expected 4 CQEs in the ring and an overflow, got %u%s",
		     io_uring_cq_ready(&ring),
		     io_uring_cq_has_overflow(&ring) ? "" : " and no overflow");

	for (int i = 0; i < 4; i++) {
		URING(io_uring_peek_cqe(&ring, &cqe));
		if (cqe->user_data != (unsigned)i || cqe->res != 0)
			fail("NOP %d: user_data=%llu res=%d", i,
			     (unsigned long long)cqe->user_data, cqe->res);
		io_uring_cqe_seen(&ring, cqe);
	}
	if (io_uring_cq_ready(&ring) || !io_uring_cq_has_overflow(&ring))
		fail("the overflow list was flushed unexpectedly");

	io_uring_queue_exit(&ring);	/* 12 overflowed CQEs never reaped */
	return 0;
}
