/* uringcheck-test: expect=left-in-flight */
/*
 * One ring: a NOP completes (its CQE is posted, checked with
 * io_uring_cq_ready, but never consumed) and a READ from an empty pipe is
 * in flight when io_uring_queue_exit() tears the ring down. Both findings:
 * the READ is dropped and the NOP's CQE is unreaped.
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

int main(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	sqe = get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 1;
	submit_exact(&ring, 2);
	for (int i = 0; io_uring_cq_ready(&ring) < 1; i++) {
		if (i >= 5000)
			fail("the NOP did not complete within 5 s");
		usleep(1000);
	}
	if (io_uring_cq_ready(&ring) != 1)
		fail("%u CQEs posted, expected only the NOP's", io_uring_cq_ready(&ring));

	io_uring_queue_exit(&ring);	/* READ in flight, NOP CQE unreaped */
	close(a[0]); close(a[1]);
	return 0;
}
