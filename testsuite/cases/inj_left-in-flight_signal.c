/* uringcheck-test: expect=left-in-flight status=139 match="^==[0-9]+==WARNING: uringcheck: left-in-flight: 2 requests still in flight when the process was killed by signal 11 [(]SEGV[)] [(]READ x1, POLL_ADD x1[)]$" */
/*
 * A READ and a POLL_ADD in flight when the program crashes (SIGSEGV): the
 * run ends with the signal's status (128+11) and one line about what was
 * left, no stacks: the crash is the news.
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
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>

static char buf[4096] __attribute__((aligned(4096)));

int main(void)
{
	struct rlimit nocore = { 0, 0 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2], b[2];

	SYS(setrlimit(RLIMIT_CORE, &nocore));
	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &ring, 0));
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	sqe = get_sqe(&ring);
	io_uring_prep_poll_add(sqe, b[0], POLLIN);
	submit_exact(&ring, 2);
	require_no_cqe(&ring, "READ and POLL_ADD submitted");
	signal(SIGSEGV, SIG_DFL);
	raise(SIGSEGV);
	return 0;
}
