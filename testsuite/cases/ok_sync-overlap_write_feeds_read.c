/* uringcheck-test: expect=clean */
/*
 * Loads that feed the very request that fills the buffer, which orders
 * them (the read waits for that data): liburing's tests do this.
 *  - a READ from an empty pipe into buf; write(2) of buf into that pipe;
 *  - the same with the pipe as a registered (fixed) file;
 *  - the same with IOSQE_ASYNC (queued to io-wq before its file is
 *    assigned);
 *  - a RECV on one end of a socket pair into buf2; send(2) of buf2 on the
 *    other end;
 *  - a write(2) from memory next to an in-flight READ's buffer.
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
static char buf2[4096] __attribute__((aligned(4096)));

static void read_fed_by_write(struct io_uring *ring, int p[2], int fixed, int async)
{
	struct io_uring_sqe *sqe = get_sqe(ring);
	struct cqe_copy c;

	io_uring_prep_read(sqe, fixed ? 0 : p[0], buf, 64, 0);
	if (fixed)
		sqe->flags |= IOSQE_FIXED_FILE;
	if (async)
		sqe->flags |= IOSQE_ASYNC;
	sqe->user_data = 7;
	submit_exact(ring, 1);
	usleep(20000);		/* let it wait */
	require_no_cqe(ring, "the READ waits");
	write_all(p[1], buf, 64);	/* feeds the READ: ordered */
	c = wait_one(ring);
	if (c.user_data != 7 || c.res != 64)
		fail("READ: res=%d", c.res);
}

int main(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	int p[2], q[2], s[2];

	SYS(pipe(p));
	SYS(pipe(q));
	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, s));
	URING(io_uring_queue_init(8, &ring, 0));
	URING(io_uring_register_files(&ring, &p[0], 1));

	read_fed_by_write(&ring, p, 0, 0);
	read_fed_by_write(&ring, p, 1, 0);
	read_fed_by_write(&ring, p, 0, 1);

	sqe = get_sqe(&ring);
	io_uring_prep_recv(sqe, s[0], buf2, 100, 0);
	sqe->user_data = 8;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "the RECV waits");
	if (send(s[1], buf2, 100, 0) != 100)	/* feeds the RECV: ordered */
		fail("send: %s", strerror(errno));
	c = wait_one(&ring);
	if (c.user_data != 8 || c.res != 100)
		fail("RECV: res=%d", c.res);

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], buf, 64, 0);
	sqe->user_data = 9;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "the READ waits");
	write_all(q[1], buf + 64, 64);		/* next to it: no overlap */
	feed(p[1], 64, 2);
	c = wait_one(&ring);
	if (c.user_data != 9 || c.res != 64)
		fail("READ: res=%d", c.res);
	discard(q[0], 64);

	io_uring_queue_exit(&ring);
	close(p[0]); close(p[1]); close(q[0]); close(q[1]); close(s[0]); close(s[1]);
	return 0;
}
