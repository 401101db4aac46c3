/* uringcheck-test: expect=clean */
/*
 * The clean recycle loop: 5,000 messages through 4 ring-provided buffers
 * with a multishot RECV. Each buffer goes back to the ring only after
 * the CQE that returned it was consumed (its data copied out first).
 * Every 50 messages the program also reads a pipe with read(2) and with a
 * READ request into its own scratch memory, just past the pool, while
 * the RECV is armed: nothing is held then, nothing collides.
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

#define BGID 1
#define ENTRIES 4
#define BSZ 64
#define MSGS 5000
#define MSG 32
static char pool[ENTRIES * BSZ + 2 * 64] __attribute__((aligned(4096)));
static char *const scratch = pool + ENTRIES * BSZ;

static void arm(struct io_uring *ring, int fd)
{
	struct io_uring_sqe *sqe = get_sqe(ring);

	io_uring_prep_recv_multishot(sqe, fd, NULL, 0, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = BGID;
	sqe->user_data = 1;
	submit_exact(ring, 1);
}

int main(void)
{
	struct io_uring_buf_ring *br;
	struct io_uring ring;
	size_t got = 0;
	char copy[BSZ];
	int s[2], p[2], rearmed = 0;

	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, s));
	SYS(pipe(p));
	URING(io_uring_queue_init(16, &ring, 0));
	br = buf_ring_setup(&ring, ENTRIES, BGID);
	buf_ring_fill(br, ENTRIES, pool, ENTRIES, BSZ);
	arm(&ring, s[0]);

	for (int m = 0; m < MSGS; m++) {
		feed(s[1], MSG, m);
		while (got < (size_t)(m + 1) * MSG) {
			struct cqe_copy c = wait_one(&ring);
			unsigned bid;

			if (c.user_data != 1)
				fail("unexpected CQE %llu", (unsigned long long)c.user_data);
			if (c.res == -ENOBUFS || (c.res >= 0 && !(c.flags & IORING_CQE_F_BUFFER))) {
				if (!(c.flags & IORING_CQE_F_MORE)) {
					arm(&ring, s[0]);
					rearmed++;
				}
				continue;
			}
			if (c.res <= 0)
				fail("RECV: res=%d", c.res);
			bid = c.flags >> IORING_CQE_BUFFER_SHIFT;
			if (bid >= ENTRIES)
				fail("buffer id %u", bid);
			memcpy(copy, pool + bid * BSZ, c.res);
			got += c.res;
			buf_ring_give(br, ENTRIES, pool + bid * BSZ, BSZ, bid);
			if (!(c.flags & IORING_CQE_F_MORE)) {
				arm(&ring, s[0]);
				rearmed++;
			}
		}
		if (m % 50 == 0) {
			struct io_uring_sqe *sqe;
			struct cqe_copy c;

			feed(p[1], 32, m);
			read_all(p[0], scratch, 16);
			sqe = get_sqe(&ring);
			io_uring_prep_read(sqe, p[0], scratch + 64, 16, 0);
			sqe->user_data = 2;
			submit_exact(&ring, 1);
			c = wait_one(&ring);
			if (c.user_data != 2 || c.res != 16)
				fail("READ: ud=%llu res=%d", (unsigned long long)c.user_data, c.res);
		}
	}

	{
		struct io_uring_sqe *sqe = get_sqe(&ring);
		struct cqe_copy c;

		io_uring_prep_cancel64(sqe, 1, 0);
		sqe->user_data = 3;
		submit_exact(&ring, 1);
		for (int i = 0; i < 2; i++) {
			c = wait_one(&ring);
			if (!(c.user_data == 3 && c.res == 0) &&
			    !(c.user_data == 1 && c.res == -ECANCELED))
				fail("cancel: ud=%llu res=%d", (unsigned long long)c.user_data,
				     c.res);
		}
	}
	io_uring_queue_exit(&ring);
	close(s[0]); close(s[1]); close(p[0]); close(p[1]);
	return 0;
}
