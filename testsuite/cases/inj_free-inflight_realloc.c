/* uringcheck-test: expect=free-inflight match="realloc\(\) moving heap chunk 0x[0-9a-f]+ \(4104 usable bytes\)" */
/*
 * A READ from an empty pipe into a 4 KiB malloc() chunk is in flight when
 * the program grows the buffer with realloc(). A chunk allocated right
 * after it keeps glibc from growing it in place, so realloc moves it and
 * frees the old chunk: free-inflight (a moving realloc). The READ then
 * completes into the freed chunk.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <malloc.h>
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
	char *buf, *guard, *grown;
	uintptr_t was;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	buf = malloc(4096);
	guard = malloc(64);		/* the next chunk: no growing in place */
	if (!buf || !guard)
		fail("malloc");

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, 4096, 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");

	was = (uintptr_t)buf;
	grown = realloc(buf, 3 * 4096);	/* moves: the old chunk is freed */
	if (!grown)
		fail("realloc");
	if ((uintptr_t)grown == was)
		fail("realloc grew the chunk in place; the test needs a move");

	feed(a[1], 100, 1);
	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != 100)
		fail("READ: user_data=%llu res=%d, expected 100",
		     (unsigned long long)c.user_data, c.res);

	free(grown);
	free(guard);
	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
