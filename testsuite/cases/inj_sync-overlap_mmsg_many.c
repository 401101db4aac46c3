/* uringcheck-test: expect=sync-overlap match="2 findings: sync-overlap 2" */
/*
 * Past the first four messages (the old bound): a READ from an empty pipe
 * fills buf; recvmmsg(2) receives 40 datagrams at once, the 33rd into
 * buf + 32, and sendmmsg(2) sends 40, the 38th from buf + 64. Both are
 * judged like the first message: two sync-overlaps, and no note of
 * messages left unjudged.
 */
#include "uc_test.h"

#define NMSG	40

static char buf[4096] __attribute__((aligned(4096)));
static char other[NMSG * 16];

int main(void)
{
	const int want[1] = { 128 };
	struct mmsghdr mm[NMSG];
	struct iovec iov[NMSG];
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int p[2], d[2], e[2], i, sz = 1 << 20;

	SYS(pipe(p));
	SYS(socketpair(AF_UNIX, SOCK_DGRAM, 0, d));
	SYS(socketpair(AF_UNIX, SOCK_DGRAM, 0, e));
	SYS(setsockopt(d[1], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz)));
	SYS(setsockopt(e[1], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz)));
	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], buf, 128, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "the READ waits");

	memset(mm, 0, sizeof(mm));
	for (i = 0; i < NMSG; i++) {
		write_all(d[1], other, 16);
		iov[i] = (struct iovec){ other + i * 16, 16 };
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	iov[32] = (struct iovec){ buf + 32, 16 };		/* the bug */
	if (recvmmsg(d[0], mm, NMSG, MSG_DONTWAIT, NULL) != NMSG)
		fail("recvmmsg: %s", strerror(errno));

	memset(mm, 0, sizeof(mm));
	for (i = 0; i < NMSG; i++) {
		iov[i] = (struct iovec){ other + i * 16, 8 };
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	iov[37] = (struct iovec){ buf + 64, 8 };		/* the bug */
	if (sendmmsg(e[1], mm, NMSG, 0) != NMSG)
		fail("sendmmsg: %s", strerror(errno));

	feed(p[1], 128, 1);
	reap(&ring, want, 1);
	io_uring_queue_exit(&ring);
	return 0;
}
