/* uringcheck-test: expect=pbuf-reprovided */
/*
 * A multishot RECV through 4 ring buffers. After the first message the
 * program gives bid 0 back twice (a double recycle), so its memory is in
 * the ring at two positions. When the kernel picks bid 0 again and hands
 * it back, the other copy is still there for the same multishot RECV to
 * pick for the next message: pbuf-reprovided.
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

#define BGID 11
#define ENTRIES 8
#define NBUF 4
#define BSZ 64
static char pool[NBUF * BSZ] __attribute__((aligned(4096)));

int main(void)
{
	struct io_uring_buf_ring *br;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	int s[2];

	SYS(socketpair(AF_UNIX, SOCK_DGRAM, 0, s));
	URING(io_uring_queue_init(8, &ring, 0));
	br = buf_ring_setup(&ring, ENTRIES, BGID);
	buf_ring_fill(br, ENTRIES, pool, NBUF, BSZ);

	sqe = get_sqe(&ring);
	io_uring_prep_recv_multishot(sqe, s[0], NULL, 0, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = BGID;
	sqe->user_data = 1;
	submit_exact(&ring, 1);

	for (int m = 0; m < 5; m++) {
		unsigned bid;

		feed(s[1], 16, m);
		c = wait_one(&ring);
		if (c.user_data != 1 || c.res != 16 || !(c.flags & IORING_CQE_F_MORE))
			fail("message %d: res=%d flags=0x%x", m, c.res, c.flags);
		bid = c.flags >> IORING_CQE_BUFFER_SHIFT;
		buf_ring_give(br, ENTRIES, pool + bid * BSZ, BSZ, bid);
		if (m == 0)
			buf_ring_give(br, ENTRIES, pool + bid * BSZ, BSZ, bid);	/* the bug */
	}

	sqe = get_sqe(&ring);
	io_uring_prep_cancel64(sqe, 1, 0);
	sqe->user_data = 2;
	submit_exact(&ring, 1);
	for (int done = 0, cancelled = 0; !done || !cancelled;) {
		c = wait_one(&ring);
		if (c.user_data == 2)
			cancelled = 1;
		else if (!(c.flags & IORING_CQE_F_MORE))
			done = 1;
	}
	io_uring_queue_exit(&ring);
	close(s[0]);
	close(s[1]);
	return 0;
}
