/* uringcheck-test: expect=clean */
/*
 * Near misses of the provided-buffer hazards, all legal:
 *  - a RECV returns bid 0; the program reads into bid 0's memory with a
 *    READ request and read(2) (it owns that buffer until it gives it
 *    back), then gives bid 0 back to the ring;
 *  - a RECV with MSG_WAITALL then holds bid 1 while it waits for more;
 *    meanwhile the program reads into the bytes just past bid 1 (its own
 *    scratch memory) and gives back bid 0 again after another round;
 *  - the held RECV completes with bid 1, and bid 1 goes back only after
 *    its CQE.
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

#define BGID 2
#define ENTRIES 2
#define BSZ 256
static char pool[ENTRIES * BSZ + 256] __attribute__((aligned(4096)));

static void recv_bsel(struct io_uring *ring, int fd, unsigned len, int flags, __u64 ud)
{
	struct io_uring_sqe *sqe = get_sqe(ring);

	io_uring_prep_recv(sqe, fd, NULL, len, flags);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = BGID;
	sqe->user_data = ud;
	submit_exact(ring, 1);
}

int main(void)
{
	struct io_uring_buf_ring *br;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	int s[2], p[2];

	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, s));
	SYS(pipe(p));
	URING(io_uring_queue_init(8, &ring, 0));
	br = buf_ring_setup(&ring, ENTRIES, BGID);
	buf_ring_give(br, ENTRIES, pool, BSZ, 0);
	buf_ring_give(br, ENTRIES, pool + BSZ, BSZ, 1);

	/* bid 0 comes back, and is the program's until given back */
	feed(s[1], 40, 1);
	recv_bsel(&ring, s[0], BSZ, 0, 1);
	c = wait_one(&ring);
	if (c.res != 40 || (c.flags >> IORING_CQE_BUFFER_SHIFT) != 0)
		fail("RECV 1: res=%d flags=0x%x", c.res, c.flags);
	feed(p[1], 32, 2);
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], pool + 8, 16, 0);
	sqe->user_data = 2;
	submit_exact(&ring, 1);
	c = wait_one(&ring);
	if (c.user_data != 2 || c.res != 16)
		fail("READ: res=%d", c.res);
	read_all(p[0], pool + 32, 16);

	/* bid 1 held by a waiting RECV; bid 0 still ours */
	recv_hold(&ring, s, BGID, 3);
	feed(p[1], 16, 4);
	read_all(p[0], pool + 2 * BSZ, 16);		/* just past bid 1 */
	sqe = get_sqe(&ring);
	feed(p[1], 16, 5);
	io_uring_prep_read(sqe, p[0], pool + 2 * BSZ + 64, 16, 0);
	sqe->user_data = 4;
	submit_exact(&ring, 1);
	c = wait_one(&ring);
	if (c.user_data != 4 || c.res != 16)
		fail("READ 2: res=%d", c.res);
	buf_ring_give(br, ENTRIES, pool, BSZ, 0);	/* bid 0: ours to give */

	feed(s[1], 54, 6);
	c = wait_one(&ring);
	if (c.user_data != 3 || c.res != 64 || (c.flags >> IORING_CQE_BUFFER_SHIFT) != 1)
		fail("RECV 3: res=%d flags=0x%x", c.res, c.flags);
	buf_ring_give(br, ENTRIES, pool + BSZ, BSZ, 1);	/* after its CQE */

	io_uring_queue_exit(&ring);
	close(s[0]); close(s[1]); close(p[0]); close(p[1]);
	return 0;
}
