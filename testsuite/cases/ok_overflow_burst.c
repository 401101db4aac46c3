/* uringcheck-test: expect=clean timeout=60 */
/*
 * 65,536 POLL_ADDs on one pipe complete at once into a 4,096-entry CQ:
 * 61,440 CQEs go to the overflow list in one completion flush (what
 * liburing's poll test does). The program then reaps every one and exits
 * cleanly. The checker must follow each overflowing end at a bounded cost
 * (it once walked the batch for each, holding the CPU for 26 s in the
 * kernel: a soft lockup) and lose none of them (no request left over).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "uc_test.h"

/* ---- end of common helpers ---- */

#define NPOLL	65536

int main(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE, .cq_entries = 4096 };
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int a[2], queued = 0, seen = 0;

	SYS(pipe(a));
	URING(io_uring_queue_init_params(4096, &ring, &p));
	while (queued < NPOLL) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		if (!sqe) {
			URING(io_uring_submit(&ring));
			continue;
		}
		io_uring_prep_poll_add(sqe, a[0], POLLIN);
		sqe->user_data = ++queued;
	}
	URING(io_uring_submit(&ring));
	if (io_uring_cq_ready(&ring))
		fail("a poll completed before the write");
	write_all(a[1], "x", 1);
	while (seen < NPOLL) {
		URING(io_uring_wait_cqe(&ring, &cqe));
		if (!(cqe->res & POLLIN))
			fail("poll %llu: res %d", (unsigned long long)cqe->user_data, cqe->res);
		io_uring_cqe_seen(&ring, cqe);
		seen++;
	}
	io_uring_queue_exit(&ring);
	return 0;
}
