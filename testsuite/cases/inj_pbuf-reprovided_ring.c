/* uringcheck-test: expect=pbuf-reprovided */
/*
 * A RECV with MSG_WAITALL and a provided buffer: 10 of its 64 bytes
 * arrive, so the kernel keeps the buffer it picked (bid 0) and waits for
 * the rest. The program puts bid 0 back in the buffer ring meanwhile (a
 * recycling bug: it never saw a CQE for it). When the rest arrives, the
 * CQE hands back bid 0 while the same memory sits among the entries the
 * kernel may pick again, and a second RECV of the group waits to pick:
 * pbuf-reprovided.
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

#define BGID 3
#define ENTRIES 8
#define NBUF 4
#define BSZ 256
static char pool[NBUF * BSZ] __attribute__((aligned(4096)));

int main(void)
{
	struct io_uring_buf_ring *br;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	int s[2], t[2], seen = 0;

	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, s));
	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, t));
	URING(io_uring_queue_init(8, &ring, 0));
	br = buf_ring_setup(&ring, ENTRIES, BGID);
	buf_ring_fill(br, ENTRIES, pool, NBUF, BSZ);

	recv_hold(&ring, s, BGID, 1);	/* bid 0 is held */
	sqe = get_sqe(&ring);
	io_uring_prep_recv(sqe, t[0], NULL, 32, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = BGID;
	sqe->user_data = 2;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "the second RECV waits");

	buf_ring_give(br, ENTRIES, pool, BSZ, 0);	/* the bug */

	feed(s[1], 54, 2);
	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != 64 || !(c.flags & IORING_CQE_F_BUFFER) ||
	    (c.flags >> IORING_CQE_BUFFER_SHIFT) != 0)
		fail("RECV: res=%d flags=0x%x", c.res, c.flags);
	seen++;
	feed(t[1], 32, 3);
	c = wait_one(&ring);
	if (c.user_data != 2 || c.res != 32)
		fail("RECV 2: res=%d", c.res);
	seen++;

	io_uring_queue_exit(&ring);
	close(s[0]); close(s[1]); close(t[0]); close(t[1]);
	if (seen != 2)
		return 1;
	return 0;
}
