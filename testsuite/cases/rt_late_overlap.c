/* uringcheck-test: expect=overlap kind=runner args=1 */
/*
 * Runner helper for the shared-programs tests: uses its ring once (a NOP,
 * so its thread has entered io_uring), sleeps argv[1] seconds, then
 * submits two READs into the same buffer (an overlap). Started in the
 * background by a program that exits at once, it outlives the uringcheck
 * that ran it: its later requests must reach no other instance.
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

int main(int argc, char **argv)
{
	const int want[2] = { 100, 200 };
	double delay = argc > 1 ? atof(argv[1]) : 1;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	int a[2], b[2];

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &ring, 0));
	io_uring_prep_nop(get_sqe(&ring));
	submit_exact(&ring, 1);
	c = wait_one(&ring);
	(void)c;

	usleep((useconds_t)(delay * 1e6));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, b[0], buf, sizeof(buf), 0);
	sqe->user_data = 1;
	submit_exact(&ring, 2);
	feed(a[1], 100, 1);
	feed(b[1], 200, 2);
	reap(&ring, want, 2);
	io_uring_queue_exit(&ring);
	return 0;
}
