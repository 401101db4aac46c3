/* uringcheck-test: expect=sync-overlap */
/*
 * A RECV with MSG_WAITALL holds the provided buffer it picked (bid 0)
 * while it waits for the rest of its 64 bytes. A plain read() into the
 * middle of that buffer stores into memory the kernel owns: sync-overlap
 * (the kernel's pick is seen held at the read's entry).
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

#define BGID 4
#define ENTRIES 4
#define BSZ 256
static char pool[ENTRIES * BSZ] __attribute__((aligned(4096)));

int main(void)
{
	struct io_uring_buf_ring *br;
	struct io_uring ring;
	struct cqe_copy c;
	int s[2], p[2];

	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, s));
	SYS(pipe(p));
	URING(io_uring_queue_init(8, &ring, 0));
	br = buf_ring_setup(&ring, ENTRIES, BGID);
	buf_ring_fill(br, ENTRIES, pool, ENTRIES, BSZ);

	recv_hold(&ring, s, BGID, 1);

	feed(p[1], 16, 3);
	read_all(p[0], pool + 100, 16);		/* the bug */

	feed(s[1], 54, 2);
	c = wait_one(&ring);
	if (c.res != 64 || (c.flags >> IORING_CQE_BUFFER_SHIFT) != 0)
		fail("RECV: res=%d flags=0x%x", c.res, c.flags);

	io_uring_queue_exit(&ring);
	close(s[0]); close(s[1]); close(p[0]); close(p[1]);
	return 0;
}
