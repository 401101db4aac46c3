/* uringcheck-test: expect=overlap match="overlap: .*READ" */
/*
 * Not the "write feeds the read" pair: a WRITE of buf waits on a full
 * pipe (it copied nothing yet), then a READ of that same pipe into buf.
 * The READ gets the pipe's older bytes and stores them into buf before
 * the WRITE sends it: what the WRITE sends depends on timing. An
 * overlap, though both meet on one pipe.
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
#include <sys/uio.h>
#include <unistd.h>

#include "uc_test.h"

/* ---- end of common helpers ---- */

static char buf[4096];
static char drain[65536];

int main(void)
{
	const int want[2] = { sizeof(buf), sizeof(buf) };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	size_t filled;
	int p[2];

	SYS(pipe(p));
	filled = fill_pipe(p[1]);
	URING(io_uring_queue_init(8, &ring, 0));
	pattern(buf, sizeof(buf), 4);

	sqe = get_sqe(&ring);
	io_uring_prep_write(sqe, p[1], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "WRITE submitted");
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], buf, sizeof(buf), 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	reap(&ring, want, 2);		/* the READ made room for the WRITE */
	if (filled > sizeof(buf))
		read_all(p[0], drain, filled - sizeof(buf));
	discard(p[0], sizeof(buf));

	io_uring_queue_exit(&ring);
	return 0;
}
