/* uringcheck-test: expect=clean kind=runner */
/*
 * Runner helper: submits and reaps one NOP, then resets the SIGSEGV handler
 * to SIG_DFL and raises SIGSEGV, so the process dies by signal 11. The core
 * size limit is set to 0 first so no core file is written (WCOREDUMP is
 * therefore false).
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
#include <signal.h>
#include <sys/resource.h>

int main(void)
{
	const int want[1] = { 0 };
	struct rlimit nocore = { 0, 0 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;

	URING(io_uring_queue_init(4, &ring, 0));
	sqe = get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	reap(&ring, want, 1);
	io_uring_queue_exit(&ring);

	SYS(setrlimit(RLIMIT_CORE, &nocore));
	signal(SIGSEGV, SIG_DFL);
	{
		sigset_t s;

		sigemptyset(&s);
		sigaddset(&s, SIGSEGV);
		sigprocmask(SIG_UNBLOCK, &s, NULL);
	}
	raise(SIGSEGV);
	fail("still alive after raise(SIGSEGV)");
}
