// SPDX-License-Identifier: GPL-2.0
/*
 * heap_free: malloc(4096) + free() pairs in a process that has an
 * io_uring ring: what free-inflight's uprobes on glibc's free cost a
 * program's ordinary heap use.
 *
 *   heap_free N [busy]
 *
 * idle (default): the ring has nothing in flight (each free traps into
 * the uprobe, which returns at once); busy: READs from an empty pipe
 * stay in flight into the chunks right before and right after the one
 * the loop allocates, so each free falls inside the span the kernel side
 * keeps (bpf/heap_bounds.bpf.h) and is sent with its stack and judged
 * (no overlap: a clean run). A free outside that span costs what idle
 * does.
 *
 * Prints: RESULT heap pid=P ops=N ops_per_sec=R
 */
#define _GNU_SOURCE
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	int busy = argc > 2 && !strcmp(argv[2], "busy");
	struct io_uring ring;
	char *held = malloc(4096), *mid = malloc(4096), *held2 = malloc(4096);
	volatile char sink = 0;
	int p[2], ret;
	double t0, t1;

	if (argc < 2 || n <= 0 || !held || !mid || !held2 || pipe(p)) {
		fprintf(stderr, "usage: heap_free N [busy]\n");
		return 2;
	}
	ret = io_uring_queue_init(8, &ring, 0);
	if (ret < 0) {
		fprintf(stderr, "heap_free: io_uring_queue_init: %s\n", strerror(-ret));
		return 1;
	}
	free(mid);		/* the loop's malloc gets it back (tcache) */
	if (busy) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_read(sqe, p[0], held, 4096, 0);
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_read(sqe, p[0], held2, 4096, 0);
		io_uring_submit(&ring);
	}
	t0 = now();
	for (long i = 0; i < n; i++) {
		char *c = malloc(4096);

		if (!c)
			return 1;
		c[0] = (char)i;
		sink += c[0];
		free(c);
	}
	t1 = now();
	if (busy) {
		struct io_uring_cqe *cqe;

		for (int i = 0; i < 2; i++) {
			if (write(p[1], "x", 1) != 1 || io_uring_wait_cqe(&ring, &cqe))
				return 1;
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	io_uring_queue_exit(&ring);
	free(held);
	free(held2);
	printf("RESULT heap pid=%d ops=%ld ops_per_sec=%.0f\n", getpid(), n, n / (t1 - t0));
	return 0;
}
