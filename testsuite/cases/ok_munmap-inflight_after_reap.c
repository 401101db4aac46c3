/* uringcheck-test: expect=clean */
/*
 * A READ from an empty pipe into a 2-page anonymous mapping; the pipe is
 * written and the CQE reaped. Only then is the mapping madvise(DONTNEED)ed,
 * shrunk with mremap() and finally munmap()ed: the request had completed,
 * so no hazard. A READ_FIXED whose registered buffer is in a second mapping
 * likewise completes and is reaped (and the buffers unregistered) before
 * that mapping is munmap()ed.
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
	const int want[1] = { 100 }, want2[1] = { 200 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct iovec reg;
	char expect[100];
	char *p, *f;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	f = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || f == MAP_FAILED)
		fail("mmap: %s", strerror(errno));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], p, 2 * PAGE, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");
	feed(a[1], 100, 1);
	reap(&ring, want, 1);
	pattern(expect, sizeof(expect), 1);
	if (memcmp(p, expect, sizeof(expect)))
		fail("READ did not land in the mapping");

	SYS(madvise(p, 2 * PAGE, MADV_DONTNEED));
	if (mremap(p, 2 * PAGE, PAGE, 0) != p)
		fail("mremap shrink: %s", strerror(errno));
	SYS(munmap(p, PAGE));

	reg = (struct iovec){ .iov_base = f, .iov_len = PAGE };
	URING(io_uring_register_buffers(&ring, &reg, 1));
	sqe = get_sqe(&ring);
	io_uring_prep_read_fixed(sqe, a[0], f, PAGE, 0, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ_FIXED submitted");
	feed(a[1], 200, 2);
	reap(&ring, want2, 1);
	URING(io_uring_unregister_buffers(&ring));
	SYS(munmap(f, PAGE));

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
