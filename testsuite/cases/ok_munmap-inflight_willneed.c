/* uringcheck-test: expect=clean */
/*
 * A READ from an empty pipe into a 2-page anonymous mapping is in flight
 * while madvise(MADV_WILLNEED) is applied to the whole buffer. WILLNEED is
 * only a read-ahead hint and never discards or unmaps anything: not a
 * finding. The READ completes with 100 into the buffer.
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

#define PAGE 4096

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
	p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		fail("mmap: %s", strerror(errno));
	memset(p, 0x5a, 2 * PAGE);

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], p, 2 * PAGE, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");

	SYS(madvise(p, 2 * PAGE, MADV_WILLNEED));
	require_no_cqe(&ring, "madvise(MADV_WILLNEED) done");

	feed(a[1], 100, 1);
	reap(&ring, want, 1);
	pattern(expect, sizeof(expect), 1);
	if (memcmp(p, expect, sizeof(expect)))
		fail("READ did not land in the buffer");

	SYS(munmap(p, 2 * PAGE));
	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
