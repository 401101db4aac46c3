/*
 * A provided buffer that cannot be resolved, for the runner (run.sh,
 * "runner: pbuf gap"): a RECV with MSG_WAITALL holds bid 0 while twenty
 * other RECVs take bids 1..20, and a READ waits on a pipe (memory in
 * flight: the CQEs are judged). When the held RECV completes, its entry
 * is 21 ring positions behind the kernel's head, past the 16 that are
 * searched: its pick is not resolved, and the run must say so.
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

#define BGID 11
#define ENTRIES 32
#define NBUF 24
#define BSZ 64
static char pool[NBUF * BSZ] __attribute__((aligned(4096)));
static char scratch[16];

int main(void)
{
	struct io_uring_buf_ring *br;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	int s[2], t[2], p[2];

	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, s));
	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, t));
	SYS(pipe(p));
	URING(io_uring_queue_init(8, &ring, 0));
	br = buf_ring_setup(&ring, ENTRIES, BGID);
	buf_ring_fill(br, ENTRIES, pool, NBUF, BSZ);

	recv_hold(&ring, s, BGID, 1);		/* bid 0 */
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], scratch, sizeof(scratch), 0);
	sqe->user_data = 2;
	submit_exact(&ring, 1);
	for (int i = 0; i < 20; i++) {
		feed(t[1], 32, i);
		sqe = get_sqe(&ring);
		io_uring_prep_recv(sqe, t[0], NULL, 32, 0);
		sqe->flags |= IOSQE_BUFFER_SELECT;
		sqe->buf_group = BGID;
		sqe->user_data = 10 + i;
		submit_exact(&ring, 1);
		c = wait_one(&ring);
		if (c.user_data != 10 + (unsigned)i || c.res != 32)
			fail("RECV %d: res=%d", i, c.res);
	}
	feed(s[1], 54, 2);
	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != 64)
		fail("held RECV: res=%d", c.res);
	write_all(p[1], scratch, sizeof(scratch));
	c = wait_one(&ring);
	if (c.user_data != 2)
		fail("READ: res=%d", c.res);

	io_uring_queue_exit(&ring);
	return 0;
}
