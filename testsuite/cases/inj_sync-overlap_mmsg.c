/* uringcheck-test: expect=sync-overlap match="2 findings: sync-overlap 2" */
/*
 * A READ from an empty pipe fills buf. Meanwhile recvmmsg(2) receives two
 * datagrams, the second into buf + 32 (a store into bytes the READ owns),
 * and sendmmsg(2) sends two, the second from buf + 64 to another socket
 * pair (a load of bytes the READ may be storing). Two sync-overlaps.
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
static char other[256];

int main(void)
{
	const int want[1] = { 128 };
	struct mmsghdr mm[2];
	struct iovec iov[2];
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int p[2], d[2], e[2];

	SYS(pipe(p));
	SYS(socketpair(AF_UNIX, SOCK_DGRAM, 0, d));
	SYS(socketpair(AF_UNIX, SOCK_DGRAM, 0, e));
	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], buf, 128, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "the READ waits");

	/* two datagrams queued, received at once */
	write_all(d[1], other, 16);
	write_all(d[1], other, 16);
	memset(mm, 0, sizeof(mm));
	iov[0] = (struct iovec){ other + 64, 16 };
	iov[1] = (struct iovec){ buf + 32, 16 };		/* the bug */
	mm[0].msg_hdr.msg_iov = &iov[0];
	mm[0].msg_hdr.msg_iovlen = 1;
	mm[1].msg_hdr.msg_iov = &iov[1];
	mm[1].msg_hdr.msg_iovlen = 1;
	if (recvmmsg(d[0], mm, 2, MSG_DONTWAIT, NULL) != 2)
		fail("recvmmsg: %s", strerror(errno));

	/* two datagrams sent at once, the second from the READ's buffer */
	memset(mm, 0, sizeof(mm));
	iov[0] = (struct iovec){ other, 8 };
	iov[1] = (struct iovec){ buf + 64, 8 };		/* the bug */
	mm[0].msg_hdr.msg_iov = &iov[0];
	mm[0].msg_hdr.msg_iovlen = 1;
	mm[1].msg_hdr.msg_iov = &iov[1];
	mm[1].msg_hdr.msg_iovlen = 1;
	if (sendmmsg(e[1], mm, 2, 0) != 2)
		fail("sendmmsg: %s", strerror(errno));

	feed(p[1], 128, 1);
	reap(&ring, want, 1);
	io_uring_queue_exit(&ring);
	close(p[0]); close(p[1]); close(d[0]); close(d[1]); close(e[0]); close(e[1]);
	return 0;
}
