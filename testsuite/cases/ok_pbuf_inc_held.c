/* uringcheck-test: expect=clean */
/*
 * An incremental ring's buffer held across a wait: a RECV of 64 bytes
 * with MSG_WAITALL gets 10 of them from a 256-byte buffer (bid 0) and
 * waits for the rest, so it will store into bytes 10..63 at most. A READ
 * into bytes 200..215 of that buffer (memory the program knows no
 * receive can reach: the receive is bounded by its length) is submitted
 * and served meanwhile. Not a finding: a held incremental buffer is not
 * taken whole (what it will take is known only at its CQE, judged then).
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

#define BGID 12
#define ENTRIES 4
#define BSZ 256
static char pool[BSZ] __attribute__((aligned(4096)));

int main(void)
{
	struct io_uring_buf_ring *br;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	char data[16] = { 0 };
	int s[2], p[2];

	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, s));
	SYS(pipe(p));
	URING(io_uring_queue_init(8, &ring, 0));
	br = buf_ring_setup_inc(&ring, ENTRIES, BGID);
	buf_ring_give(br, ENTRIES, pool, BSZ, 0);

	recv_hold(&ring, s, BGID, 1);
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], pool + 200, 16, 0);
	sqe->user_data = 2;
	submit_exact(&ring, 1);
	write_all(p[1], data, sizeof(data));
	c = wait_one(&ring);
	if (c.user_data != 2 || c.res != 16)
		fail("READ: res=%d", c.res);

	feed(s[1], 54, 2);
	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != 64 || (c.flags >> IORING_CQE_BUFFER_SHIFT) != 0)
		fail("held RECV: res=%d flags=0x%x", c.res, c.flags);

	io_uring_queue_exit(&ring);
	close(s[0]); close(s[1]); close(p[0]); close(p[1]);
	return 0;
}
