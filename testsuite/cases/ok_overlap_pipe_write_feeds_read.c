/* uringcheck-test: expect=clean */
/*
 * A write and a read of the same buffer through one pipe, in flight
 * together, ordered by the data flow (hazards.md section 1): the read can
 * only store the bytes the write already copied out of that buffer.
 *  - liburing's register-restrictions: a WRITEV of vec into the pipe
 *    (fixed file 1), then a READV of the pipe into vec (fixed file 0),
 *    one submission: the WRITEV copied all of vec at its issue;
 *  - liburing's link-timeout: a READV from the empty pipe into buffer
 *    waits (linked to a LINK_TIMEOUT), then a WRITEV of buffer into the
 *    same pipe, one submission: the READV gets the WRITEV's bytes;
 *  - the same with plain descriptors, READ first, WRITE in a later call.
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

static char buf[128];

int main(void)
{
	struct __kernel_timespec ts = { .tv_sec = 1 };
	struct iovec vec = { .iov_base = buf, .iov_len = sizeof(buf) };
	const int want2[2] = { sizeof(buf), sizeof(buf) };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	int p[2], i, n;

	SYS(pipe(p));
	URING(io_uring_queue_init(8, &ring, 0));
	pattern(buf, sizeof(buf), 5);

	/* register-restrictions: WRITEV, then READV, by fixed file */
	URING(io_uring_register_files(&ring, p, 2));
	sqe = get_sqe(&ring);
	io_uring_prep_writev(sqe, 1, &vec, 1, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe->user_data = 0;
	sqe = get_sqe(&ring);
	io_uring_prep_readv(sqe, 0, &vec, 1, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe->user_data = 1;
	submit_exact(&ring, 2);
	reap(&ring, want2, 2);
	URING(io_uring_unregister_files(&ring));

	/* link-timeout: READV (linked to a timeout), then WRITEV */
	sqe = get_sqe(&ring);
	io_uring_prep_readv(sqe, p[0], &vec, 1, 0);
	sqe->flags |= IOSQE_IO_LINK;
	sqe->user_data = 1;
	sqe = get_sqe(&ring);
	io_uring_prep_link_timeout(sqe, &ts, 0);
	sqe->user_data = 2;
	sqe = get_sqe(&ring);
	io_uring_prep_writev(sqe, p[1], &vec, 1, 0);
	sqe->user_data = 3;
	submit_exact(&ring, 3);
	for (i = n = 0; i < 3; i++) {
		c = wait_one(&ring);
		if (c.user_data == 2 ? c.res != -ECANCELED : c.res != (int)sizeof(buf))
			fail("link-timeout pair: user_data=%llu res=%d",
			     (unsigned long long)c.user_data, c.res);
		n++;
	}

	/* a READ waiting on the empty pipe, then a WRITE in another call */
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");
	sqe = get_sqe(&ring);
	io_uring_prep_write(sqe, p[1], buf, sizeof(buf), 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	reap(&ring, want2, 2);

	io_uring_queue_exit(&ring);
	close(p[0]);
	close(p[1]);
	return n == 3 ? 0 : 1;
}
