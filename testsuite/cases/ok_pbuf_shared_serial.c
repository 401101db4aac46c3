/* uringcheck-test: expect=clean */
/*
 * One buffer given to the kernel under every id of a ring (liburing's
 * buf-ring test does this), and read into by one request at a time: the
 * same memory sits in the ring many times, but no other request can pick
 * it while the program owns it. Not a finding.
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

#define BGID 12
#define ENTRIES 32
static char buffer[8];

int main(void)
{
	struct io_uring_buf_ring *br;
	struct io_uring ring;
	int fd = SYS(open("/dev/zero", O_RDONLY));

	URING(io_uring_queue_init(8, &ring, 0));
	br = buf_ring_setup(&ring, ENTRIES, BGID);
	for (int i = 0; i < ENTRIES; i++)
		buf_ring_give(br, ENTRIES, buffer, sizeof(buffer), i);

	for (int i = 0; i < ENTRIES; i++) {
		struct io_uring_sqe *sqe = get_sqe(&ring);
		struct cqe_copy c;

		memset(buffer, 1, sizeof(buffer));
		io_uring_prep_read(sqe, fd, NULL, sizeof(buffer), 0);
		sqe->flags |= IOSQE_BUFFER_SELECT;
		sqe->buf_group = BGID;
		sqe->user_data = i;
		submit_exact(&ring, 1);
		c = wait_one(&ring);
		if (c.res != sizeof(buffer) || (c.flags >> IORING_CQE_BUFFER_SHIFT) != (unsigned)i)
			fail("READ %d: res=%d flags=0x%x", i, c.res, c.flags);
		if (buffer[0] != 0)
			fail("READ %d: no data", i);
	}
	io_uring_queue_exit(&ring);
	close(fd);
	return 0;
}
