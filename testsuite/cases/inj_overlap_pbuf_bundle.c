/* uringcheck-test: expect=overlap match="stores into .* provided buffer 1 of group 6" */
/*
 * A RECV bundle (IORING_RECVSEND_BUNDLE) finds 150 bytes waiting and
 * takes several 64-byte buffers of its group at once: bids 0 and 1 at
 * least (its length, 150, bounds what it takes); its CQE names only
 * bid 0. A READ from an empty pipe into bid 1's memory is in flight
 * meanwhile: the bundle stored into memory that READ still holds.
 * Overlap, on the bundle's second buffer.
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

#define BGID 6
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
	char data[16] = { 0 };
	int s[2], p[2];

	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, s));
	SYS(pipe(p));
	URING(io_uring_queue_init(8, &ring, 0));
	br = buf_ring_setup(&ring, ENTRIES, BGID);
	buf_ring_fill(br, ENTRIES, pool, NBUF, BSZ);

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], pool + BSZ + 16, 16, 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "the READ waits on the empty pipe");

	feed(s[1], 150, 1);
	sqe = get_sqe(&ring);
	io_uring_prep_recv(sqe, s[0], NULL, 150, 0);	/* at most: 6.12 takes one buffer without */
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = BGID;
	sqe->ioprio |= IORING_RECVSEND_BUNDLE;
	sqe->user_data = 2;
	submit_exact(&ring, 1);
	c = wait_one(&ring);
	if (c.user_data != 2 || c.res <= BSZ + 16 || !(c.flags & IORING_CQE_F_BUFFER) ||
	    (c.flags >> IORING_CQE_BUFFER_SHIFT) != 0)
		fail("bundle RECV: user_data=%llu res=%d flags=0x%x",
		     (unsigned long long)c.user_data, c.res, c.flags);

	write_all(p[1], data, sizeof(data));
	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != 16)
		fail("READ: res=%d", c.res);

	io_uring_queue_exit(&ring);
	close(s[0]); close(s[1]); close(p[0]); close(p[1]);
	return 0;
}
