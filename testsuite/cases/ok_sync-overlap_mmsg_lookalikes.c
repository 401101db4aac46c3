/* uringcheck-test: expect=clean */
/*
 * recvmmsg/sendmmsg near an in-flight READ's buffer, legally:
 *  - recvmmsg with two messages, the second into the READ's buffer, but
 *    only one datagram waiting: the second message receives nothing
 *    (what each message moved is its msg_len);
 *  - recvmmsg into memory next to the buffer;
 *  - a RECV on one end of a datagram socket pair waiting in buf2, and
 *    sendmmsg from buf2 on the other end: it feeds that RECV (ordered).
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
static char other[256];

int main(void)
{
	struct mmsghdr mm[2];
	struct iovec iov[2];
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	int p[2], d[2], s[2];

	SYS(pipe(p));
	SYS(socketpair(AF_UNIX, SOCK_DGRAM, 0, d));
	SYS(socketpair(AF_UNIX, SOCK_DGRAM, 0, s));
	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], buf, 128, 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "the READ waits");

	write_all(d[1], other, 16);
	memset(mm, 0, sizeof(mm));
	iov[0] = (struct iovec){ other + 64, 16 };
	iov[1] = (struct iovec){ buf + 32, 16 };	/* never reached */
	mm[0].msg_hdr.msg_iov = &iov[0];
	mm[0].msg_hdr.msg_iovlen = 1;
	mm[1].msg_hdr.msg_iov = &iov[1];
	mm[1].msg_hdr.msg_iovlen = 1;
	if (recvmmsg(d[0], mm, 2, MSG_DONTWAIT, NULL) != 1)
		fail("recvmmsg: %s", strerror(errno));

	write_all(d[1], other, 16);
	iov[0] = (struct iovec){ buf + 128, 16 };	/* next to it */
	if (recvmmsg(d[0], mm, 1, MSG_DONTWAIT, NULL) != 1)
		fail("recvmmsg 2: %s", strerror(errno));

	sqe = get_sqe(&ring);
	io_uring_prep_recv(sqe, s[0], buf2, 64, 0);
	sqe->user_data = 2;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "the RECV waits");
	memset(mm, 0, sizeof(mm));
	iov[0] = (struct iovec){ buf2, 32 };		/* feeds the RECV */
	mm[0].msg_hdr.msg_iov = &iov[0];
	mm[0].msg_hdr.msg_iovlen = 1;
	if (sendmmsg(s[1], mm, 1, 0) != 1)
		fail("sendmmsg: %s", strerror(errno));
	c = wait_one(&ring);
	if (c.user_data != 2 || c.res != 32)
		fail("RECV: res=%d", c.res);

	feed(p[1], 128, 1);
	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != 128)
		fail("READ: res=%d", c.res);
	io_uring_queue_exit(&ring);
	close(p[0]); close(p[1]); close(d[0]); close(d[1]); close(s[0]); close(s[1]);
	return 0;
}
