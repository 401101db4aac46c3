/* uringcheck-test: expect=clean match="shared SQ drop counter rose outside the kernel's own submissions" */
/*
 * The program writes the SQ ring's shared dropped counter by hand, as
 * liburing's defer test does (*ring->sq.kdropped = 1000, to check that
 * drain does not trust it), then submits and reaps a NOP. The kernel
 * discarded nothing: no dropped finding, only the note that the counter
 * rose outside the kernel's own submissions and was not judged.
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
	struct io_uring_cqe *cqe;
	struct io_uring ring;

	URING(io_uring_queue_init(8, &ring, 0));
	*ring.sq.kdropped = 1000;
	io_uring_prep_nop(get_sqe(&ring));
	if (io_uring_submit(&ring) != 1)
		fail("submit");
	URING(io_uring_wait_cqe(&ring, &cqe));
	io_uring_cqe_seen(&ring, cqe);
	if (*ring.sq.kdropped != 1000)
		fail("sq_dropped is %u, expected 1000", *ring.sq.kdropped);
	io_uring_queue_exit(&ring);
	return 0;
}
