// SPDX-License-Identifier: GPL-2.0
/*
 * heap_alloc: malloc(64) + free() pairs in a process that has an
 * io_uring ring: what free-inflight's probes cost a program's ordinary
 * heap use, the allocation probes (the new owner's stack,
 * bpf/heap_alloc.bpf.h) beside the free probe.
 *
 *   heap_alloc N [watched]
 *
 * idle (default): nothing in flight; each malloc returns through the
 * allocation uretprobe, which sees no watched chunk of this process and
 * returns at once; each free traps into the free probe as in
 * bench/heap_free.c. watched: first a chunk is freed under a READ from
 * an empty pipe that stays in flight until the loop is done (a real
 * free-inflight, reported once at the end: the chunk is never handed out
 * again, it is larger than the loop's), so this process holds a watch
 * for the whole loop and each malloc also compares its chunk with the
 * watch table. The loop's chunk comes from glibc's per-thread cache,
 * primed before: never from the watched one.
 *
 * Prints: RESULT heap_alloc pid=P ops=N ops_per_sec=R
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
	int watched = argc > 2 && !strcmp(argv[2], "watched");
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	/* guard: keeps big from merging with the top of the heap; prime:
	 * the cache entry every malloc(64) of the loop takes */
	char *big = malloc(8192), *guard = malloc(64), *prime = malloc(64);
	volatile char sink = 0;
	int p[2], ret;
	double t0, t1;

	if (argc < 2 || n <= 0 || !big || !guard || !prime || pipe(p)) {
		fprintf(stderr, "usage: heap_alloc N [watched]\n");
		return 2;
	}
	ret = io_uring_queue_init(8, &ring, 0);
	if (ret < 0) {
		fprintf(stderr, "heap_alloc: io_uring_queue_init: %s\n", strerror(-ret));
		return 1;
	}
	free(prime);
	if (watched) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_read(sqe, p[0], big, 8192, 0);
		io_uring_submit(&ring);
		free(big);	/* under the READ: watched until it completes */
	}
	t0 = now();
	for (long i = 0; i < n; i++) {
		char *c = malloc(64);

		if (!c)
			return 1;
		c[0] = (char)i;
		sink += c[0];
		free(c);
	}
	t1 = now();
	if (watched) {
		/* end of file: the READ completes storing nothing (a byte
		 * would land in malloc's own list pointers in the chunk) */
		close(p[1]);
		if (io_uring_wait_cqe(&ring, &cqe))
			return 1;
		io_uring_cqe_seen(&ring, cqe);
	}
	printf("RESULT heap_alloc pid=%d ops=%ld ops_per_sec=%.0f\n", getpid(), n,
	       n / (t1 - t0));
	io_uring_queue_exit(&ring);
	free(guard);
	return 0;
}
