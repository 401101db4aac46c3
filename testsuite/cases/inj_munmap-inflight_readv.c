/* uringcheck-test: expect=munmap-inflight */
/*
 * A READV with two 256-byte iovecs from an empty pipe: iovec 0 points into a
 * static buffer, iovec 1 into a 1-page anonymous mapping. While it is in
 * flight the mapping is munmap()ed: only iovec 1's range is hit, so this is
 * found only if every iovec is tracked: munmap-inflight. The pipe then gets
 * 100 bytes, which all land in iovec 0: res is exactly 100. The iovec array
 * itself is static and stays valid.
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
#include <sys/mman.h>
#include <sys/uio.h>

#define PAGE 4096

static char area[4096] __attribute__((aligned(4096)));
static struct iovec iov[2];

int main(void)
{
	const int want[1] = { 100 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	char expect[100];
	char *p;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		fail("mmap: %s", strerror(errno));
	iov[0] = (struct iovec){ area, 256 };
	iov[1] = (struct iovec){ p + 1024, 256 };	/* the one in the mapping */

	sqe = get_sqe(&ring);
	io_uring_prep_readv(sqe, a[0], iov, 2, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READV submitted");

	SYS(munmap(p, PAGE));
	require_no_cqe(&ring, "mapping of iovec 1 removed");

	feed(a[1], 100, 1);
	reap(&ring, want, 1);
	pattern(expect, sizeof(expect), 1);
	if (memcmp(area, expect, sizeof(expect)))
		fail("READV did not land in iovec 0");

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
