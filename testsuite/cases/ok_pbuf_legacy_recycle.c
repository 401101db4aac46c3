/* uringcheck-test: expect=clean */
/*
 * A PROVIDE_BUFFERS group of 2 buffers recycled 2,000 times: each RECV's
 * buffer is provided again only after its CQE, and between the two the
 * program reads into it with read(2) (its own memory then).
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
#define BSZ 128
#define ROUNDS 2000
static char pool[2 * BSZ] __attribute__((aligned(4096)));

static void provide(struct io_uring *ring, void *addr, int n, int bid)
{
	struct io_uring_sqe *sqe = get_sqe(ring);
	struct cqe_copy c;

	io_uring_prep_provide_buffers(sqe, addr, BSZ, n, BGID, bid);
	sqe->user_data = 9;
	submit_exact(ring, 1);
	c = wait_one(ring);
	if (c.user_data != 9 || c.res < 0)
		fail("PROVIDE_BUFFERS: res=%d", c.res);
}

int main(void)
{
	struct io_uring ring;
	int s[2], p[2];

	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, s));
	SYS(pipe(p));
	URING(io_uring_queue_init(8, &ring, 0));
	provide(&ring, pool, 2, 0);

	for (int r = 0; r < ROUNDS; r++) {
		struct io_uring_sqe *sqe;
		struct cqe_copy c;
		unsigned bid;

		feed(s[1], 48, r);
		sqe = get_sqe(&ring);
		io_uring_prep_recv(sqe, s[0], NULL, BSZ, 0);
		sqe->flags |= IOSQE_BUFFER_SELECT;
		sqe->buf_group = BGID;
		sqe->user_data = 1;
		submit_exact(&ring, 1);
		c = wait_one(&ring);
		if (c.user_data != 1 || c.res != 48 || !(c.flags & IORING_CQE_F_BUFFER))
			fail("RECV %d: res=%d flags=0x%x", r, c.res, c.flags);
		bid = c.flags >> IORING_CQE_BUFFER_SHIFT;
		if (bid > 1)
			fail("buffer id %u", bid);
		if (r % 100 == 0) {
			feed(p[1], 16, r);
			read_all(p[0], pool + bid * BSZ, 16);
		}
		provide(&ring, pool + bid * BSZ, 1, bid);
	}

	io_uring_queue_exit(&ring);
	close(s[0]); close(s[1]); close(p[0]); close(p[1]);
	return 0;
}
