/* uringcheck-test: expect=clean */
/*
 * READ of a regular file into buf with IOSQE_CQE_SKIP_SUCCESS, linked to a
 * NOP. The READ posts no CQE on success; the NOP's CQE (which can only come
 * after the READ finished) is the only completion. After it, a second READ
 * into the same buf is submitted: the first one has completed (silently),
 * so no hazard. A checker that waits for the skipped CQE would report a
 * false overlap.
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

static char buf[4096] __attribute__((aligned(4096)));

int main(void)
{
	char tmpl[] = "/tmp/uc_skip_XXXXXX", want[4096];
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	int fd;

	fd = SYS(mkstemp(tmpl));
	SYS(unlink(tmpl));
	pattern(want, sizeof(want), 1);
	write_all(fd, want, sizeof(want));
	pattern(want, sizeof(want), 2);
	write_all(fd, want, sizeof(want));
	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, fd, buf, sizeof(buf), 0);
	sqe->flags |= IOSQE_CQE_SKIP_SUCCESS | IOSQE_IO_LINK;
	sqe->user_data = 0;
	sqe = get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 1;
	submit_exact(&ring, 2);
	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != 0)
		fail("expected only the NOP's CQE, got user_data=%llu res=%d",
		     (unsigned long long)c.user_data, c.res);
	if (io_uring_cq_ready(&ring))
		fail("the skipped READ posted a CQE");
	pattern(want, sizeof(want), 1);
	if (memcmp(buf, want, sizeof(buf)))
		fail("first READ did not fill buf");

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, fd, buf, sizeof(buf), sizeof(buf));
	sqe->user_data = 2;
	submit_exact(&ring, 1);
	c = wait_one(&ring);
	if (c.user_data != 2 || c.res != (int)sizeof(buf))
		fail("second READ: res=%d", c.res);
	pattern(want, sizeof(want), 2);
	if (memcmp(buf, want, sizeof(buf)))
		fail("second READ did not fill buf");

	io_uring_queue_exit(&ring);
	close(fd);
	return 0;
}
