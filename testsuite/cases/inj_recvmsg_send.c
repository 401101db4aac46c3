/* uringcheck-test: expect=overlap */
/*
 * A SEND of buf[0..64) on a socket whose send buffer is full (stays in
 * flight until the peer reads), and a RECVMSG on another, empty socketpair
 * whose single data iovec is buf[32..96). Both in flight together; the
 * RECVMSG stores into bytes the SEND still loads: overlap (sink vs source,
 * the range of a RECVMSG is its iovec data, not the msghdr).
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
#include <sys/uio.h>

static char buf[4096] __attribute__((aligned(4096)));

int main(void)
{
	const int want[2] = { 64, 64 };
	struct iovec iov = { .iov_base = buf + 32, .iov_len = 64 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int tx[2], rx[2];
	size_t filled;

	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, tx));
	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, rx));
	filled = fill_socket(tx[0]);
	URING(io_uring_queue_init(8, &ring, 0));

	pattern(buf, 64, 3);
	sqe = get_sqe(&ring);
	io_uring_prep_send(sqe, tx[0], buf, 64, 0);
	sqe->user_data = 0;
	sqe = get_sqe(&ring);
	io_uring_prep_recvmsg(sqe, rx[0], &msg, 0);
	sqe->user_data = 1;
	submit_exact(&ring, 2);
	require_no_cqe(&ring, "SEND and RECVMSG submitted");

	feed(rx[1], 64, 1);		/* completes the RECVMSG */
	discard(tx[1], filled);		/* makes room: the SEND completes */
	reap(&ring, want, 2);
	discard(tx[1], 64);

	io_uring_queue_exit(&ring);
	close(tx[0]); close(tx[1]); close(rx[0]); close(rx[1]);
	return 0;
}
