/* uringcheck-test: expect=clean */
/*
 * The bundle of inj_overlap_pbuf_bundle, legal: the READ in flight
 * stores into bid 3's memory, which the bundle (two or three buffers of
 * the 150 bytes waiting) did not take. The program gives the buffers
 * back after the CQE, and further bundles take the rest once the READ
 * is done. Every buffer is judged (no unresolved pick).
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

static int bundle(struct io_uring *ring, int fd, __u64 ud)
{
	struct io_uring_sqe *sqe = get_sqe(ring);
	struct cqe_copy c;

	io_uring_prep_recv(sqe, fd, NULL, 150, 0);	/* at most: 6.12 takes one buffer without */
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = BGID;
	sqe->ioprio |= IORING_RECVSEND_BUNDLE;
	sqe->user_data = ud;
	submit_exact(ring, 1);
	c = wait_one(ring);
	if (c.user_data != ud || c.res <= 0 || !(c.flags & IORING_CQE_F_BUFFER))
		fail("bundle RECV %llu: res=%d flags=0x%x", (unsigned long long)ud,
		     c.res, c.flags);
	return c.res;
}

int main(void)
{
	struct io_uring_buf_ring *br;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	char data[16] = { 0 };
	int s[2], p[2], got, n;

	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, s));
	SYS(pipe(p));
	URING(io_uring_queue_init(8, &ring, 0));
	br = buf_ring_setup(&ring, ENTRIES, BGID);
	buf_ring_fill(br, ENTRIES, pool, NBUF, BSZ);

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], pool + 3 * BSZ + 16, 16, 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "the READ waits on the empty pipe");

	feed(s[1], 150, 1);
	got = bundle(&ring, s[0], 2);
	n = (got + BSZ - 1) / BSZ;
	if (n < 2 || n > 3)
		fail("the bundle took %d bytes", got);
	for (int i = 0; i < n; i++)
		buf_ring_give(br, ENTRIES, pool + i * BSZ, BSZ, i);

	write_all(p[1], data, sizeof(data));
	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != 16)
		fail("READ: res=%d", c.res);

	while (got < 150)
		got += bundle(&ring, s[0], 3);

	io_uring_queue_exit(&ring);
	close(s[0]); close(s[1]); close(p[0]); close(p[1]);
	return 0;
}
