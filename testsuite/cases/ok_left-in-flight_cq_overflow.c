/* uringcheck-test: expect=clean */
/*
 * Ring with a 4-entry CQ (IORING_SETUP_CQSIZE). 16 NOPs are submitted
 * without reaping, so 12 CQEs go to the kernel's overflow list (checked via
 * IORING_SQ_CQ_OVERFLOW). The program then reaps all 16 (io_uring_wait_cqe
 * flushes the overflow list into the ring as it goes) and checks that
 * nothing is left before io_uring_queue_exit(): no dropped request and no
 * unreaped CQE, even though the CQ overflowed.
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
	unsigned char got[N] = { 0 };
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
	if (!io_uring_cq_has_overflow(&ring))
		fail("the CQ did not overflow");

	for (int i = 0; i < N; i++) {
		struct cqe_copy c = wait_one(&ring);

		if (c.user_data >= N || got[c.user_data]++ || c.res != 0)
			fail("NOP %llu: res=%d", (unsigned long long)c.user_data, c.res);
	}
	if (io_uring_cq_has_overflow(&ring) || io_uring_cq_ready(&ring))
		fail("completions left over");

	io_uring_queue_exit(&ring);
	return 0;
}
