/* uringcheck-test: expect=clean match="6 recvmmsg/sendmmsg messages past the first 64 of a call not judged" */
/*
 * The bound, said when hit: while a READ holds buf, recvmmsg(2) receives
 * 70 datagrams at once, none into buf. The first 64 are judged (nothing
 * to find); the 6 past them are not, and the run says so (a counted note,
 * never silence).
 */
#include "uc_test.h"

#define NMSG	70

static char buf[4096] __attribute__((aligned(4096)));
static char other[NMSG * 16];

int main(void)
{
	const int want[1] = { 128 };
	struct mmsghdr mm[NMSG];
	struct iovec iov[NMSG];
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int p[2], d[2], i, sz = 1 << 20;

	SYS(pipe(p));
	SYS(socketpair(AF_UNIX, SOCK_DGRAM, 0, d));
	SYS(setsockopt(d[1], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz)));
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
	if (recvmmsg(d[0], mm, NMSG, MSG_DONTWAIT, NULL) != NMSG)
		fail("recvmmsg: %s", strerror(errno));

	feed(p[1], 128, 1);
	reap(&ring, want, 1);
	io_uring_queue_exit(&ring);
	return 0;
}
