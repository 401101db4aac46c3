/* uringcheck-test: expect=reap-lag options=--reap-lag-ms=50,--liburing-uprobes match="consumed by the program before this call into liburing" */
/*
 * --liburing-uprobes on the target's own liburing: a NOP completes inline
 * during io_uring_submit(); its CQE sits 300 ms (over the 50 ms
 * threshold) and is then consumed inline (io_uring_peek_cqe and
 * io_uring_cqe_seen make no call into liburing's library), and the next
 * call into it, the submission of a second NOP, is where the program
 * came back: the report names that call (the uprobe on io_uring_submit,
 * attached to this process before it ran: checker/liburing_probes.c).
 * In the kernel matrix too: the probe's form differs with the kernel
 * (a uprobe_multi link from v6.12, a perf event before).
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

static void nop(struct io_uring *ring, __u64 ud)
{
	struct io_uring_sqe *sqe = get_sqe(ring);

	io_uring_prep_nop(sqe);
	sqe->user_data = ud;
	submit_exact(ring, 1);
}

int main(void)
{
	struct io_uring_cqe *cqe;
	struct io_uring ring;

	URING(io_uring_queue_init(8, &ring, 0));
	nop(&ring, 1);
	if (io_uring_cq_ready(&ring) != 1)
		fail("the NOP's CQE was not posted during submit");

	usleep(300 * 1000);			/* the lag */

	if (io_uring_peek_cqe(&ring, &cqe) || cqe->user_data != 1)
		fail("NOP 1: no CQE to peek");
	io_uring_cqe_seen(&ring, cqe);
	nop(&ring, 2);				/* the call the report names */
	URING(io_uring_wait_cqe(&ring, &cqe));
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	return 0;
}
