/* uringcheck-test: expect=overlap+left-in-flight */
/*
 * A READ from an empty pipe is in flight when its ring is closed; the
 * kernel cancels it later, from a work queue. A second ring, already set
 * up, reads into the same buffer right after the close: until the
 * cancellation ends the first READ, both may store into it. The close is a
 * left-in-flight warning; the reuse, when the first READ is still alive,
 * an overlap.
 *
 * Whether the kernel has cancelled it by then is a race, so the program
 * proves it: after the second submission it writes a byte into the first
 * pipe. If that byte is gone, the closed ring's READ took it (and wrote it
 * into buf): it was in flight. It tries until that happens (at most 200
 * times). Under uringcheck it happens nearly every time; run alone, the
 * kernel's exit work usually wins the race on an idle machine, and the
 * program says so and fails: the case is about the checker, and whenever
 * the READ was alive it must report the overlap.
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

/* One try; true if the closed ring's READ was still alive after the
 * second READ was submitted. */
static int attempt(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring r1, r2;
	int a[2], b[2], alive;
	char c;

	SYS(pipe2(a, O_NONBLOCK));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &r1, 0));
	URING(io_uring_queue_init(8, &r2, 0));
	sqe = get_sqe(&r1);
	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	submit_exact(&r1, 1);
	io_uring_queue_exit(&r1);
	sqe = get_sqe(&r2);
	io_uring_prep_read(sqe, b[0], buf, sizeof(buf), 0);
	submit_exact(&r2, 1);
	write_all(a[1], "y", 1);
	usleep(1000);
	alive = read(a[0], &c, 1) != 1;
	write_all(b[1], "x", 1);
	(void)wait_one(&r2);
	io_uring_queue_exit(&r2);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return alive;
}

int main(void)
{
	for (int i = 0; i < 200; i++)
		if (attempt())
			return 0;
	fail("the closed ring's READ was always cancelled first");
}
