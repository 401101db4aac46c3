/* uringcheck-test: expect=sync-overlap match="sync-overlap: recvfrom[(][)] stored into 100 bytes that the in-flight SEND still holds" */
/*
 * A SEND of buf waits on a socket whose send buffer is full; meanwhile
 * the program recv(2)s another socket's message into buf. What the SEND
 * finally sends depends on timing: sync-overlap (the call stores, the
 * request loads).
 */
#include "uc_test.h"

static char buf[4096] __attribute__((aligned(4096)));

int main(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	size_t filled;
	int s[2], d[2];

	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, s));
	SYS(socketpair(AF_UNIX, SOCK_DGRAM, 0, d));
	filled = fill_socket(s[0]);
	URING(io_uring_queue_init(8, &ring, 0));
	pattern(buf, sizeof(buf), 8);

	sqe = get_sqe(&ring);
	io_uring_prep_send(sqe, s[0], buf, 512, 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "SEND submitted");

	feed(d[1], 100, 2);
	if (SYS(recv(d[0], buf, sizeof(buf), 0)) != 100)	/* the bug */
		fail("recv: short");

	discard(s[1], filled);			/* room: the SEND completes */
	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != 512)
		fail("SEND: user_data=%llu res=%d", (unsigned long long)c.user_data, c.res);
	io_uring_queue_exit(&ring);
	return 0;
}
