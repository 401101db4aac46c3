/* uringcheck-test: expect=overlap */
/*
 * A RECV with MSG_WAITALL holds the provided buffer it picked (bid 0)
 * while it waits for the rest of its 64 bytes. A READ request into that
 * buffer, submitted meanwhile, stores into memory the kernel owns:
 * overlap (the pick is seen held when the READ is submitted).
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

#define BGID 5
#define ENTRIES 4
#define BSZ 256
static char pool[ENTRIES * BSZ] __attribute__((aligned(4096)));

int main(void)
{
	struct io_uring_buf_ring *br;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	int s[2], p[2], seen = 0;

	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, s));
	SYS(pipe(p));
	URING(io_uring_queue_init(8, &ring, 0));
	br = buf_ring_setup(&ring, ENTRIES, BGID);
	buf_ring_fill(br, ENTRIES, pool, ENTRIES, BSZ);

	recv_hold(&ring, s, BGID, 1);

	feed(p[1], 16, 3);
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], pool + 32, 16, 0);	/* the bug */
	sqe->user_data = 2;
	submit_exact(&ring, 1);

	feed(s[1], 54, 2);
	for (int i = 0; i < 2; i++) {
		c = wait_one(&ring);
		if (c.user_data == 1 && c.res == 64)
			seen |= 1;
		else if (c.user_data == 2 && c.res == 16)
			seen |= 2;
		else
			fail("unexpected CQE %llu res=%d", (unsigned long long)c.user_data, c.res);
	}

	io_uring_queue_exit(&ring);
	close(s[0]); close(s[1]); close(p[0]); close(p[1]);
	return 0;
}
