/* uringcheck-test: expect=clean */
/*
 * The in-flight table under load: 2048 READs from empty pipes in flight
 * at once, each into its own 16 bytes of one buffer (so neighbouring
 * requests are adjacent, never overlapping), far more than one window of
 * the table (bpf/inflight.bpf.h) holds. Then the pipes are fed and every
 * CQE reaped, and a second wave reuses the same buffers: no hazard, and
 * the slots freed by the first wave must not be mistaken for requests
 * still in flight.
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

#define N	2048
#define PIPES	32
#define SLICE	16

static char buf[N * SLICE] __attribute__((aligned(4096)));

static void wave(struct io_uring *ring, int fds[PIPES][2])
{
	char data[N / PIPES * SLICE];

	for (unsigned i = 0; i < N; i++) {
		struct io_uring_sqe *sqe = get_sqe(ring);

		io_uring_prep_read(sqe, fds[i % PIPES][0], buf + i * SLICE, SLICE, 0);
		sqe->user_data = i;
		if ((i + 1) % 256 == 0)
			submit_exact(ring, 256);
	}
	require_no_cqe(ring, "READs from empty pipes submitted");
	memset(data, 'x', sizeof(data));
	for (unsigned p = 0; p < PIPES; p++)
		write_all(fds[p][1], data, sizeof(data));
	for (unsigned done = 0; done < N; done++) {
		struct cqe_copy c = wait_one(ring);

		if (c.res != SLICE)
			fail("READ %llu: %d", (unsigned long long)c.user_data, c.res);
	}
}

int main(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE, .cq_entries = 2 * N };
	struct io_uring ring;
	int fds[PIPES][2];

	for (unsigned i = 0; i < PIPES; i++)
		SYS(pipe(fds[i]));
	URING(io_uring_queue_init_params(256, &ring, &p));
	wave(&ring, fds);
	wave(&ring, fds);
	io_uring_queue_exit(&ring);
	return 0;
}
