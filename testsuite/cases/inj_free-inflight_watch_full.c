/* uringcheck-test: expect=free-inflight options=--heap-alloc-probes match="whether the chunk was handed out again before the request ended is not known: no watch slot was free \(64 a run\)" */
/*
 * 65 READs from one empty pipe are in flight, each into a 256-byte
 * chunk of its own, when all 65 chunks are freed: 65 free-inflight
 * findings (one printed, the rest counted as repeats: one call site).
 * Each waits for its chunk's next owner, holding one of the 64 slots of
 * the watch table until its READ ends; the 65th finds them all held. Its
 * report is printed at once and says that whether its chunk was handed
 * out again is not known (asserted), and the run's end counts it in a
 * note. Closing the write end ends the READs with end of file: nothing
 * is stored into the freed chunks.
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

#define N 65

int main(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	char *buf[N], *guard[N];
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(128, &ring, 0));
	for (int i = 0; i < N; i++) {
		buf[i] = malloc(256);
		guard[i] = malloc(16);	/* no two freed chunks merge */
		if (!buf[i] || !guard[i])
			fail("malloc");
		sqe = get_sqe(&ring);
		io_uring_prep_read(sqe, a[0], buf[i], 256, 0);
		sqe->user_data = i + 1;
	}
	submit_exact(&ring, N);
	require_no_cqe(&ring, "READs submitted");

	for (int i = 0; i < N; i++)
		free(buf[i]);		/* while its READ is in flight */

	close(a[1]);
	for (int i = 0; i < N; i++) {
		c = wait_one(&ring);
		if (c.res != 0)
			fail("READ %llu: res=%d, expected 0 (end of file)",
			     (unsigned long long)c.user_data, c.res);
	}
	for (int i = 0; i < N; i++)
		free(guard[i]);
	io_uring_queue_exit(&ring);
	close(a[0]);
	return 0;
}
