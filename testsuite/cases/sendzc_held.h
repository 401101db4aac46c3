/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A SEND_ZC whose buffer the kernel holds until the test lets it go: the
 * request's first CQE (res = bytes queued, IORING_CQE_F_MORE) has come,
 * its notification (IORING_CQE_F_NOTIF) cannot, because the receiver of
 * a TCP loopback connection has a tiny receive buffer it never reads
 * from, so the data sits unsent in the sender's write queue. Draining the
 * receiver lets the data go, be acknowledged and the notification come.
 * Shared by the SEND_ZC cases (inj_sendzc_then_read, inj_free-inflight_sendzc,
 * inj_sync-overlap_read_into_sendzc and their look-alikes).
 */
#ifndef SENDZC_HELD_H
#define SENDZC_HELD_H

#include "uc_test.h"
#include <arpa/inet.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/ioctl.h>

struct zc_held {
	int lfd, tx, rx;
	size_t filled;		/* bytes sent to close the window */
};

/* bytes queued on the socket that were not sent yet */
static inline int zc_unsent(int fd)
{
	int n;

	SYS(ioctl(fd, SIOCOUTQNSD, &n));
	return n;
}

/* A connection whose receiver's window is closed while the sender still
 * has send-buffer space: what is sent next stays queued. */
static inline void zc_held_open(struct zc_held *z)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t salen = sizeof(sa);
	static char junk[1024];
	int one = 1, small = 2048, big = 1 << 20;
	struct pollfd pfd;

	z->filled = 0;
	z->lfd = SYS(socket(AF_INET, SOCK_STREAM, 0));
	SYS(setsockopt(z->lfd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)));
	SYS(bind(z->lfd, (struct sockaddr *)&sa, sizeof(sa)));
	SYS(listen(z->lfd, 1));
	SYS(getsockname(z->lfd, (struct sockaddr *)&sa, &salen));
	z->tx = SYS(socket(AF_INET, SOCK_STREAM, 0));
	SYS(setsockopt(z->tx, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big)));
	SYS(setsockopt(z->tx, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)));
	SYS(connect(z->tx, (struct sockaddr *)&sa, sizeof(sa)));
	z->rx = SYS(accept(z->lfd, NULL, NULL));

	/* send until data stays unsent (receiver window closed) */
	for (int i = 0; zc_unsent(z->tx) == 0; i++) {
		ssize_t n;

		if (i > 4096)
			fail("could not close the receiver's window");
		n = send(z->tx, junk, sizeof(junk), MSG_DONTWAIT);
		if (n < 0)
			fail("filling send: %s", strerror(errno));
		z->filled += n;
	}
	usleep(20 * 1000);	/* let ACKs / window updates settle */
	if (zc_unsent(z->tx) == 0)
		fail("receiver window reopened");
	pfd = (struct pollfd){ .fd = z->tx, .events = POLLOUT };
	if (poll(&pfd, 1, 0) != 1 || !(pfd.revents & POLLOUT))
		fail("sender has no send-buffer space left");
}

/* SEND_ZC of buf[0..128) with user_data 0: its first CQE is waited for,
 * its notification cannot come yet. */
static inline void zc_held_send(struct io_uring *ring, struct zc_held *z, char *buf)
{
	struct io_uring_sqe *sqe;
	struct cqe_copy c;

	pattern(buf, 128, 5);
	sqe = get_sqe(ring);
	io_uring_prep_send_zc(sqe, z->tx, buf, 128, 0, 0);
	sqe->user_data = 0;
	submit_exact(ring, 1);
	c = wait_one(ring);
	if (c.user_data != 0 || c.res != 128 || !(c.flags & IORING_CQE_F_MORE))
		fail("SEND_ZC: res=%d flags=0x%x, expected 128 with F_MORE", c.res, c.flags);
	require_no_cqe(ring, "SEND_ZC queued but unsent");
}

/* Drains the receiver: the data goes, is acknowledged, and the SEND_ZC's
 * notification is waited for. */
static inline void zc_held_release(struct io_uring *ring, struct zc_held *z)
{
	struct cqe_copy c;

	discard(z->rx, z->filled + 128);
	c = wait_one(ring);
	if (c.user_data != 0 || !(c.flags & IORING_CQE_F_NOTIF) || (c.flags & IORING_CQE_F_MORE))
		fail("expected the SEND_ZC notification, got user_data=%llu res=%d flags=0x%x",
		     (unsigned long long)c.user_data, c.res, c.flags);
}

static inline void zc_held_close(struct zc_held *z)
{
	close(z->tx);
	close(z->rx);
	close(z->lfd);
}

#endif /* SENDZC_HELD_H */
