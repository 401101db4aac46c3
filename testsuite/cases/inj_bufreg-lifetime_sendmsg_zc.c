/* uringcheck-test: expect=bufreg-lifetime */
/*
 * A SENDMSG_ZC from a registered buffer (IORING_RECVSEND_FIXED_BUF) into a
 * loopback TCP connection nobody reads yet: its CQE comes at once, but the kernel keeps
 * the buffer's pages in the socket's queue until the notification
 * (IORING_CQE_F_NOTIF), after the peer reads. The program unregisters the
 * buffer after the first CQE: the request still uses it. (liburing's
 * sendzc-bug test does this, then unmaps the buffer too.) Skips (77) on
 * kernels without registered buffers for SENDMSG_ZC.
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
#include <arpa/inet.h>
#include <netinet/in.h>

/* A connected loopback TCP pair (zero-copy sends need a real socket). */
static void tcp_pair(int sv[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int l = SYS(socket(AF_INET, SOCK_STREAM, 0));

	SYS(bind(l, (struct sockaddr *)&a, sizeof(a)));
	SYS(listen(l, 1));
	SYS(getsockname(l, (struct sockaddr *)&a, &len));
	sv[0] = SYS(socket(AF_INET, SOCK_STREAM, 0));
	SYS(connect(sv[0], (struct sockaddr *)&a, sizeof(a)));
	sv[1] = SYS(accept(l, NULL, NULL));
	close(l);
}

static char buf[4096] __attribute__((aligned(4096)));

int main(void)
{
	struct iovec reg = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct iovec iov = { .iov_base = buf, .iov_len = 1024 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	char got[1025];
	int sv[2];

	tcp_pair(sv);
	URING(io_uring_queue_init(8, &ring, 0));
	URING(io_uring_register_buffers(&ring, &reg, 1));
	memset(buf, 'B', sizeof(buf));
	sqe = get_sqe(&ring);
	/* MSG_MORE: TCP holds the bytes back (corked, up to 200 ms) rather
	 * than deliver them to the local peer, whose receive would copy
	 * them and end the notification at once. */
	io_uring_prep_sendmsg_zc(sqe, sv[0], &msg, MSG_MORE);
	sqe->ioprio |= IORING_RECVSEND_FIXED_BUF;
	sqe->buf_index = 0;
	submit_exact(&ring, 1);
	URING(io_uring_wait_cqe(&ring, &cqe));
	if (cqe->res == -EINVAL || cqe->res == -EOPNOTSUPP)
		return 77;
	if (cqe->res != 1024)
		fail("SENDMSG_ZC: res %d", cqe->res);
	if (!(cqe->flags & IORING_CQE_F_MORE))
		fail("SENDMSG_ZC: no notification to come");
	io_uring_cqe_seen(&ring, cqe);
	if (io_uring_cq_ready(&ring))
		fail("the notification came with the CQE: nothing is held");
	/* The kernel still holds the buffer's pages for the send. */
	URING(io_uring_unregister_buffers(&ring));
	SYS(send(sv[0], "!", 1, 0));	/* uncork */
	read_all(sv[1], got, sizeof(got));
	URING(io_uring_wait_cqe(&ring, &cqe));
	if (!(cqe->flags & IORING_CQE_F_NOTIF))
		fail("expected the notification");
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	return 0;
}
