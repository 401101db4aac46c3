/* uringcheck-test: expect=clean */
/*
 * After fork(), the parent and the child each create their own ring and
 * READ into buf -- the same virtual address, but in two different address
 * spaces (the child writes into its copy-on-write copy). A sync pipe makes
 * sure both READs are in flight together before the parent writes the data
 * pipes. Different processes, different memory: no hazard. A checker that
 * keys ranges by address only (not by process / mm) reports a false
 * overlap.
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
#include <sys/wait.h>

static char buf[4096] __attribute__((aligned(4096)));

int main(void)
{
	int pdata[2], cdata[2], sync[2], status;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	char c;
	pid_t pid;

	SYS(pipe(pdata));
	SYS(pipe(cdata));
	SYS(pipe(sync));
	fflush(NULL);
	pid = SYS(fork());
	if (pid == 0) {
		const int want[1] = { 200 };

		URING(io_uring_queue_init(8, &ring, 0));
		sqe = get_sqe(&ring);
		io_uring_prep_read(sqe, cdata[0], buf, sizeof(buf), 0);
		sqe->user_data = 0;
		submit_exact(&ring, 1);
		require_no_cqe(&ring, "child READ submitted");
		write_all(sync[1], "s", 1);	/* tell the parent we are in flight */
		reap(&ring, want, 1);		/* the parent feeds cdata */
		io_uring_queue_exit(&ring);
		_exit(0);
	}

	{
		const int want[1] = { 100 };

		URING(io_uring_queue_init(8, &ring, 0));
		sqe = get_sqe(&ring);
		io_uring_prep_read(sqe, pdata[0], buf, sizeof(buf), 0);
		sqe->user_data = 0;
		submit_exact(&ring, 1);
		if (SYS(read(sync[0], &c, 1)) != 1)
			fail("child died before submitting");
		require_no_cqe(&ring, "parent READ submitted");
		/* both READs are in flight now */
		feed(pdata[1], 100, 1);
		feed(cdata[1], 200, 2);
		reap(&ring, want, 1);
		io_uring_queue_exit(&ring);
	}
	SYS(waitpid(pid, &status, 0));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail("child failed (status 0x%x)", status);
	return 0;
}
