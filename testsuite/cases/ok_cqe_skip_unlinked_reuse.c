/* uringcheck-test: expect=clean */
/*
 * A READ of a regular file with IOSQE_CQE_SKIP_SUCCESS and no link: it
 * finishes silently (the program checks the data arrived), then a second
 * READ, with a CQE, goes into the same buffer. The first has ended in the
 * kernel, so this is no overlap, however the end was (not) announced.
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
	char tmpl[] = "/tmp/uc_skip2_XXXXXX", want[4096];
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	int fd, i;

	fd = SYS(mkstemp(tmpl));
	SYS(unlink(tmpl));
	pattern(want, sizeof(want), 1);
	write_all(fd, want, sizeof(want));
	pattern(want, sizeof(want), 2);
	write_all(fd, want, sizeof(want));
	URING(io_uring_queue_init(8, &ring, 0));
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, fd, buf, sizeof(buf), 0);
	sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
	submit_exact(&ring, 1);
	pattern(want, sizeof(want), 1);
	for (i = 0; memcmp(buf, want, sizeof(buf)); i++) {
		if (i == 5000)
			fail("the skipped READ never filled buf");
		usleep(1000);
	}
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, fd, buf, sizeof(buf), sizeof(buf));
	sqe->user_data = 2;
	submit_exact(&ring, 1);
	c = wait_one(&ring);
	if (c.user_data != 2 || c.res != (int)sizeof(buf))
		fail("second READ: res=%d", c.res);
	io_uring_queue_exit(&ring);
	return 0;
}
