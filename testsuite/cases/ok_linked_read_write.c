/* uringcheck-test: expect=clean */
/*
 * READ from an empty pipe into buf, linked (IOSQE_IO_LINK) to a WRITE of
 * buf into another pipe. Both SQEs are accepted together, but the link
 * makes the WRITE start only after the READ completed: members of one
 * chain are ordered, no hazard. We check the WRITE did not start early and
 * that it forwarded exactly the bytes the READ received.
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

static char buf[64];

int main(void)
{
	const int want[2] = { sizeof(buf), sizeof(buf) };
	char sent[sizeof(buf)], got[sizeof(buf)];
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int in[2], out[2];

	SYS(pipe(in));
	SYS(pipe(out));
	URING(io_uring_queue_init(8, &ring, 0));

	/* the READ must read its full length: a short read breaks the link */
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, in[0], buf, sizeof(buf), 0);
	sqe->flags |= IOSQE_IO_LINK;
	sqe->user_data = 0;
	sqe = get_sqe(&ring);
	io_uring_prep_write(sqe, out[1], buf, sizeof(buf), 0);
	sqe->user_data = 1;
	submit_exact(&ring, 2);
	require_no_cqe(&ring, "linked READ->WRITE submitted");

	pattern(sent, sizeof(sent), 4);
	write_all(in[1], sent, sizeof(sent));
	reap(&ring, want, 2);
	read_all(out[0], got, sizeof(got));
	if (memcmp(sent, got, sizeof(got)))
		fail("WRITE did not forward the READ's data");

	io_uring_queue_exit(&ring);
	close(in[0]); close(in[1]); close(out[0]); close(out[1]);
	return 0;
}
