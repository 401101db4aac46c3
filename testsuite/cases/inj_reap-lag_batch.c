/* uringcheck-test: expect=reap-lag options=--reap-lag-ms=50 */
/*
 * Four NOPs are submitted; their four CQEs are in the CQ ring when
 * io_uring_submit() returns (checked). After a 300 ms sleep they are
 * consumed in one batch: io_uring_for_each_cqe, then one
 * io_uring_cq_advance(ring, 4). All four sat ready ~300 ms, over the 50 ms
 * threshold: reap-lag (one batch-advance of the CQ head by 4).
 *
 * Kernel entry after the CQEs are posted: NONE (for_each_cqe reads the
 * ring, cq_advance is a plain store; the only syscall is the sleep).
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
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	unsigned head, n = 0, mask = 0;

	URING(io_uring_queue_init(8, &ring, 0));

	for (int i = 0; i < 4; i++) {
		sqe = get_sqe(&ring);
		io_uring_prep_nop(sqe);
		sqe->user_data = i;
	}
	submit_exact(&ring, 4);
	if (io_uring_cq_ready(&ring) != 4)
		fail("%u of the 4 NOP CQEs were posted during submit", io_uring_cq_ready(&ring));

	usleep(300 * 1000);			/* the lag */

	io_uring_for_each_cqe(&ring, head, cqe) {
		if (cqe->user_data >= 4 || (mask & (1u << cqe->user_data)) || cqe->res != 0)
			fail("NOP: user_data=%llu res=%d", (unsigned long long)cqe->user_data, cqe->res);
		mask |= 1u << cqe->user_data;
		n++;
	}
	if (n != 4 || mask != 0xf)
		fail("saw %u CQEs (mask %#x), expected the 4 NOPs", n, mask);
	io_uring_cq_advance(&ring, n);

	io_uring_queue_exit(&ring);
	return 0;
}
