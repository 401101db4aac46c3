/* uringcheck-test: expect=overlap */
/*
 * A READ into the memory of a provided buffer (a PROVIDE_BUFFERS group,
 * one buffer) waits on an empty pipe. A RECV with buffer select then gets
 * that very buffer from the kernel and fills it at once: the kernel
 * stored into memory a request in flight owns. Judged at the RECV's CQE,
 * with the buffer's address from the PROVIDE_BUFFERS request.
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

#define BGID 6
#define BSZ 512
static char pool[BSZ] __attribute__((aligned(4096)));

int main(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	int s[2], p[2], seen = 0;

	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, s));
	SYS(pipe(p));
	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_provide_buffers(sqe, pool, BSZ, 1, BGID, 0);
	sqe->user_data = 9;
	submit_exact(&ring, 1);
	c = wait_one(&ring);
	if (c.res < 0)
		fail("PROVIDE_BUFFERS: %s", strerror(-c.res));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], pool + 64, 64, 0);	/* the bug */
	sqe->user_data = 2;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "the READ waits on its pipe");

	feed(s[1], 100, 1);
	sqe = get_sqe(&ring);
	io_uring_prep_recv(sqe, s[0], NULL, BSZ, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = BGID;
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != 100 || !(c.flags & IORING_CQE_F_BUFFER))
		fail("RECV: ud=%llu res=%d flags=0x%x", (unsigned long long)c.user_data,
		     c.res, c.flags);
	seen |= 1;

	feed(p[1], 64, 2);
	c = wait_one(&ring);
	if (c.user_data != 2 || c.res != 64)
		fail("READ: res=%d", c.res);

	io_uring_queue_exit(&ring);
	close(s[0]); close(s[1]); close(p[0]); close(p[1]);
	return seen == 1 ? 0 : 1;
}
