/* uringcheck-test: expect=free-inflight options=--heap-alloc-probes match="free\(\) of heap chunk 0x[0-9a-f]+ \(4104 usable bytes\)" absent="handed out again|re-allocated at|not known" */
/*
 * The chunk of an in-flight READ is freed (free-inflight), but nothing
 * allocates it again before the READ ends: the allocations made meanwhile
 * (small ones, from glibc's per-thread cache, primed before) are watched
 * and do not meet it. The write end is closed: the READ completes with
 * end of file and stores nothing into the free chunk (a byte there would
 * land on malloc's own list pointers). The report is the plain finding:
 * no new owner named, nothing said unknown.
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

int main(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	char *buf, *guard, *small[8];
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	buf = malloc(4096);
	guard = malloc(32);		/* keeps buf from the top of the heap */
	for (int i = 0; i < 8; i++)
		small[i] = malloc(32);
	for (int i = 0; i < 8; i++)
		free(small[i]);		/* the cache the loop below takes */
	if (!buf || !guard)
		fail("malloc");

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, 4096, 0);
	sqe->user_data = 7;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");

	free(buf);				/* while the READ is in flight */
	for (int i = 0; i < 8; i++) {
		small[i] = malloc(32);	/* watched, elsewhere */
		if (!small[i] || ((uintptr_t)small[i] >= (uintptr_t)buf &&
				  (uintptr_t)small[i] < (uintptr_t)buf + 4096))
			fail("malloc(32) came from the freed chunk");
	}

	close(a[1]);
	c = wait_one(&ring);
	if (c.user_data != 7 || c.res != 0)
		fail("READ: user_data=%llu res=%d, expected 0 (end of file)",
		     (unsigned long long)c.user_data, c.res);

	for (int i = 0; i < 8; i++)
		free(small[i]);
	free(guard);
	io_uring_queue_exit(&ring);
	close(a[0]);
	return 0;
}
