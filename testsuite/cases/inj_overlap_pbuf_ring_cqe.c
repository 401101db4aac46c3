/* uringcheck-test: expect=overlap */
/*
 * A READ into the memory of a ring-provided buffer waits on an empty
 * pipe; a multishot RECV then gets that buffer from the ring and fills it
 * (the kernel stores into memory an in-flight request owns). Judged at
 * the RECV's CQE, the buffer's address read from the ring.
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

#define BGID 70
#define ENTRIES 2
#define BSZ 512
static char pool[ENTRIES * BSZ] __attribute__((aligned(4096)));

int main(void)
{
	struct io_uring_buf_ring *br;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	int s[2], p[2], armed;

	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, s));
	SYS(pipe(p));
	URING(io_uring_queue_init(8, &ring, 0));
	br = buf_ring_setup(&ring, ENTRIES, BGID);
	buf_ring_give(br, ENTRIES, pool + BSZ, BSZ, 1);

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], pool + BSZ + 100, 64, 0);	/* the bug */
	sqe->user_data = 2;
	sqe = get_sqe(&ring);
	io_uring_prep_recv_multishot(sqe, s[0], NULL, 0, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = BGID;
	sqe->user_data = 1;
	submit_exact(&ring, 2);
	require_no_cqe(&ring, "both wait");

	feed(s[1], 200, 1);
	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != 200 || (c.flags >> IORING_CQE_BUFFER_SHIFT) != 1)
		fail("RECV: ud=%llu res=%d flags=0x%x", (unsigned long long)c.user_data,
		     c.res, c.flags);
	armed = c.flags & IORING_CQE_F_MORE;

	feed(p[1], 64, 2);
	/* The READ's CQE; the RECV may end first with -ENOBUFS (its group
	 * is empty now: 6.12 ends it, 6.18 waits). */
	for (;;) {
		c = wait_one(&ring);
		if (c.user_data == 2 && c.res == 64)
			break;
		if (c.user_data == 1 && c.res == -ENOBUFS && !(c.flags & IORING_CQE_F_MORE)) {
			armed = 0;
			continue;
		}
		fail("unexpected CQE ud=%llu res=%d", (unsigned long long)c.user_data, c.res);
	}

	if (armed) {
		int cancelled = 0;

		sqe = get_sqe(&ring);
		io_uring_prep_cancel64(sqe, 1, 0);
		sqe->user_data = 3;
		submit_exact(&ring, 1);
		while (!cancelled || armed) {
			c = wait_one(&ring);
			if (c.user_data == 3)
				cancelled = 1;
			else if (c.user_data == 1 && !(c.flags & IORING_CQE_F_MORE))
				armed = 0;
			else if (c.user_data != 1)
				fail("cancel: ud=%llu res=%d", (unsigned long long)c.user_data, c.res);
		}
	}
	io_uring_queue_exit(&ring);
	close(s[0]); close(s[1]); close(p[0]); close(p[1]);
	return 0;
}
