/* uringcheck-test: expect=clean */
/*
 * Incremental buffer rings, legal: a READ in flight stores into the
 * second buffer (bid 1) while four RECVs consume the first (bid 0) in
 * 64-byte pieces, the last one without IORING_CQE_F_BUF_MORE; then,
 * bid 0 given back after its last CQE, the READ ends and two more
 * pieces are taken (200 bytes of bid 1, then its last 56). Each piece
 * is judged where it lies: nothing unresolved.
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

#define BGID 7
#define ENTRIES 4
#define BSZ 256
static char pool[2 * BSZ] __attribute__((aligned(4096)));

/* A RECV of whatever is waiting, from the incremental group: the piece
 * of the buffer it consumed, and whether the buffer stays with the
 * kernel (IORING_CQE_F_BUF_MORE). */
static struct cqe_copy piece(struct io_uring *ring, int s[2], unsigned n, __u64 ud)
{
	struct io_uring_sqe *sqe;
	struct cqe_copy c;

	feed(s[1], n, (unsigned)ud);
	sqe = get_sqe(ring);
	io_uring_prep_recv(sqe, s[0], NULL, 0, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = BGID;
	sqe->user_data = ud;
	submit_exact(ring, 1);
	c = wait_one(ring);
	if (c.user_data != ud || c.res != (int)n || !(c.flags & IORING_CQE_F_BUFFER))
		fail("RECV %llu: res=%d flags=0x%x", (unsigned long long)ud, c.res, c.flags);
	return c;
}

/* A READ from the empty pipe @p into @addr: in flight until fed. */
static void read_waits(struct io_uring *ring, int p[2], char *addr)
{
	struct io_uring_sqe *sqe = get_sqe(ring);

	io_uring_prep_read(sqe, p[0], addr, 16, 0);
	sqe->user_data = 100;
	submit_exact(ring, 1);
	require_no_cqe(ring, "the READ waits on the empty pipe");
}

static void read_ends(struct io_uring *ring, int p[2])
{
	char data[16] = { 0 };
	struct cqe_copy c;

	write_all(p[1], data, sizeof(data));
	c = wait_one(ring);
	if (c.user_data != 100 || c.res != 16)
		fail("READ: res=%d", c.res);
}

int main(void)
{
	struct io_uring_buf_ring *br;
	struct io_uring ring;
	struct cqe_copy c;
	int s[2], p[2];

	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, s));
	SYS(pipe(p));
	URING(io_uring_queue_init(8, &ring, 0));
	br = buf_ring_setup_inc(&ring, ENTRIES, BGID);
	buf_ring_give(br, ENTRIES, pool, BSZ, 0);
	buf_ring_give(br, ENTRIES, pool + BSZ, BSZ, 1);

	read_waits(&ring, p, pool + BSZ + 8);
	for (int i = 1; i <= 4; i++) {
		c = piece(&ring, s, 64, i);
		if ((c.flags >> IORING_CQE_BUFFER_SHIFT) != 0 ||
		    !(c.flags & IORING_CQE_F_BUF_MORE) != (i == 4))
			fail("piece %d: flags 0x%x", i, c.flags);
	}
	buf_ring_give(br, ENTRIES, pool, BSZ, 0);
	read_ends(&ring, p);
	piece(&ring, s, 200, 5);
	piece(&ring, s, 56, 6);

	io_uring_queue_exit(&ring);
	close(s[0]); close(s[1]); close(p[0]); close(p[1]);
	return 0;
}
