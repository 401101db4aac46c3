/* uringcheck-test: expect=clean */
/*
 * Look-alike of inj_free-inflight_sendzc: the SEND_ZC's chunk is free()d
 * only after its notification CQE, when the kernel has let go of the
 * pages. Silent.
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
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/ioctl.h>


/* bytes queued on the socket that were not sent yet */
static int unsent(int fd)
{
	int n;

	SYS(ioctl(fd, SIOCOUTQNSD, &n));
	return n;
}

int main(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t salen = sizeof(sa);
	static char junk[1024];
	int lfd, tx, rx, one = 1, small = 2048, big = 1 << 20;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	size_t filled = 0;
	int p[2];
	char *buf;

	/* loopback connection; rx = accepted side with a tiny receive buffer */
	lfd = SYS(socket(AF_INET, SOCK_STREAM, 0));
	SYS(setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)));
	SYS(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)));
	SYS(listen(lfd, 1));
	SYS(getsockname(lfd, (struct sockaddr *)&sa, &salen));
	tx = SYS(socket(AF_INET, SOCK_STREAM, 0));
	SYS(setsockopt(tx, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big)));
	SYS(setsockopt(tx, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)));
	SYS(connect(tx, (struct sockaddr *)&sa, sizeof(sa)));
	rx = SYS(accept(lfd, NULL, NULL));

	/* send until data stays unsent (receiver window closed) */
	for (int i = 0; unsent(tx) == 0; i++) {
		ssize_t n;

		if (i > 4096)
			fail("could not close the receiver's window");
		n = send(tx, junk, sizeof(junk), MSG_DONTWAIT);
		if (n < 0)
			fail("filling send: %s", strerror(errno));
		filled += n;
	}
	usleep(20 * 1000);	/* let ACKs / window updates settle */
	if (unsent(tx) == 0)
		fail("receiver window reopened");
	{
		struct pollfd pfd = { .fd = tx, .events = POLLOUT };

		if (poll(&pfd, 1, 0) != 1 || !(pfd.revents & POLLOUT))
			fail("sender has no send-buffer space left");
	}

	SYS(pipe(p));
	buf = malloc(4096);
	if (!buf)
		fail("malloc");
	URING(io_uring_queue_init(8, &ring, 0));
	pattern(buf, 128, 5);
	sqe = get_sqe(&ring);
	io_uring_prep_send_zc(sqe, tx, buf, 128, 0, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	c = wait_one(&ring);
	if (c.user_data != 0 || c.res != 128 || !(c.flags & IORING_CQE_F_MORE))
		fail("SEND_ZC: res=%d flags=0x%x, expected 128 with F_MORE", c.res, c.flags);
	require_no_cqe(&ring, "SEND_ZC queued but unsent");



	/* drain the receiver so the SEND_ZC data is transmitted, acknowledged
	 * and the notification posted */
	discard(rx, filled + 128);
	c = wait_one(&ring);
	if (c.user_data != 0 || !(c.flags & IORING_CQE_F_NOTIF) || (c.flags & IORING_CQE_F_MORE))
		fail("expected the SEND_ZC notification, got user_data=%llu res=%d flags=0x%x",
		     (unsigned long long)c.user_data, c.res, c.flags);

	free(buf);			/* legal: the notification has come */

	io_uring_queue_exit(&ring);
	close(p[0]); close(p[1]);
	close(tx); close(rx); close(lfd);
	return 0;
}
