/* uringcheck-test: expect=clean */
/*
 * Ring with a 4-entry CQ (IORING_SETUP_CQSIZE). 16 READs of a regular file
 * into 16 distinct buffers are submitted without reaping, so 12 completions
 * go to the kernel's CQ overflow list (checked via IORING_SQ_CQ_OVERFLOW).
 * All 16 are then reaped (flushing the overflow list) and 16 more READs go
 * into the SAME buffers. The first batch had completed, so no hazard; a
 * checker that loses overflowed completions would report a false overlap.
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

#define N 16
#define BSZ 512
static char bufs[N][BSZ];

static void batch(struct io_uring *ring, int fd, unsigned seed, int expect_overflow)
{
	unsigned got[N] = { 0 };
	char want[BSZ];

	for (int i = 0; i < N; i += 4) {
		for (int j = i; j < i + 4; j++) {
			struct io_uring_sqe *sqe = get_sqe(ring);

			io_uring_prep_read(sqe, fd, bufs[j], BSZ, (off_t)(seed * N + j) * BSZ);
			sqe->user_data = j;
		}
		submit_exact(ring, 4);
	}
	if (expect_overflow && !io_uring_cq_has_overflow(ring))
		fail("the CQ did not overflow");
	for (int i = 0; i < N; i++) {
		struct cqe_copy c = wait_one(ring);

		if (c.user_data >= N || got[c.user_data]++ || c.res != BSZ)
			fail("READ %llu: res=%d", (unsigned long long)c.user_data, c.res);
	}
	if (io_uring_cq_has_overflow(ring) || io_uring_cq_ready(ring))
		fail("completions left over");
	for (int j = 0; j < N; j++) {
		pattern(want, BSZ, seed * N + j);
		if (memcmp(want, bufs[j], BSZ))
			fail("buffer %d has wrong data", j);
	}
}

int main(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE, .cq_entries = 4 };
	char tmpl[] = "/tmp/uc_cqovf_XXXXXX";
	struct io_uring ring;
	char blk[BSZ];
	int fd;

	fd = SYS(mkstemp(tmpl));
	SYS(unlink(tmpl));
	for (int i = 0; i < 2 * N; i++) {
		pattern(blk, BSZ, i);
		write_all(fd, blk, BSZ);
	}
	URING(io_uring_queue_init_params(4, &ring, &p));
	if (ring.cq.ring_entries != 4)
		fail("CQ has %u entries, expected 4", ring.cq.ring_entries);

	batch(&ring, fd, 0, 1);
	batch(&ring, fd, 1, 1);

	io_uring_queue_exit(&ring);
	close(fd);
	return 0;
}
