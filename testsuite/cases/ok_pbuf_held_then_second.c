/* uringcheck-test: expect=clean */
/*
 * The look-alike of inj_overlap_pbuf_held_twice: a RECV with MSG_WAITALL
 * holds bid 0 while it waits, the program gives bid 1 (other memory) to
 * the ring, a second RECV picks bid 1 and completes, and only after the
 * held RECV's CQE does bid 0 go back, to be picked by a third RECV.
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

#define BGID 9
#define ENTRIES 4
#define BSZ 256
static char pool[2 * BSZ] __attribute__((aligned(4096)));

/* A RECV from the group on @fd, 32 bytes waiting there: it picks the
 * buffer at the ring's head and completes at once. */
static struct cqe_copy recv_now(struct io_uring *ring, int t[2], __u64 ud)
{
	struct io_uring_sqe *sqe;
	struct cqe_copy c;

	feed(t[1], 32, 3);
	sqe = get_sqe(ring);
	io_uring_prep_recv(sqe, t[0], NULL, 32, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = BGID;
	sqe->user_data = ud;
	submit_exact(ring, 1);
	c = wait_one(ring);
	if (c.user_data != ud || c.res != 32 || !(c.flags & IORING_CQE_F_BUFFER))
		fail("RECV %llu: res=%d flags=0x%x", (unsigned long long)ud, c.res, c.flags);
	return c;
}

/* The held RECV (recv_hold, user_data 1) gets the rest and ends. */
static void hold_ends(struct io_uring *ring, int s[2])
{
	struct cqe_copy c;

	feed(s[1], 54, 2);
	c = wait_one(ring);
	if (c.user_data != 1 || c.res != 64 || (c.flags >> IORING_CQE_BUFFER_SHIFT) != 0)
		fail("held RECV: res=%d flags=0x%x", c.res, c.flags);
}

int main(void)
{
	struct io_uring_buf_ring *br;
	struct io_uring ring;
	struct cqe_copy c;
	int s[2], t[2];

	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, s));
	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, t));
	URING(io_uring_queue_init(8, &ring, 0));
	br = buf_ring_setup(&ring, ENTRIES, BGID);
	buf_ring_give(br, ENTRIES, pool, BSZ, 0);

	recv_hold(&ring, s, BGID, 1);			/* bid 0 is held */
	buf_ring_give(br, ENTRIES, pool + BSZ, BSZ, 1);
	c = recv_now(&ring, t, 2);
	if ((c.flags >> IORING_CQE_BUFFER_SHIFT) != 1)
		fail("the second RECV got bid %u", c.flags >> IORING_CQE_BUFFER_SHIFT);
	hold_ends(&ring, s);
	buf_ring_give(br, ENTRIES, pool, BSZ, 0);
	c = recv_now(&ring, t, 3);
	if ((c.flags >> IORING_CQE_BUFFER_SHIFT) != 0)
		fail("the third RECV got bid %u", c.flags >> IORING_CQE_BUFFER_SHIFT);

	io_uring_queue_exit(&ring);
	close(s[0]); close(s[1]); close(t[0]); close(t[1]);
	return 0;
}
