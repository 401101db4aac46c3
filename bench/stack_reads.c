// SPDX-License-Identifier: GPL-2.0
/*
 * stack_reads: what stack-inflight's checks cost a program that reads
 * into its frames' arrays the legal way. Each iteration calls a function
 * that writes 64 bytes into a pipe, reads them back with an io_uring
 * READ into an array in its own frame, waits for the CQE and returns;
 * the caller then makes one more system call (getppid) above the old
 * frame. Under uringcheck each READ is a stack range (a lookup of the
 * thread at submission), and the thread's system calls while it is in
 * flight are looked at; the one after the return finds nothing held.
 *
 *   stack_reads N [heap]
 *
 * heap: the same with the array in the heap, for comparison (no stack
 * range, one register read at submission).
 *
 * Prints: RESULT stack pid=P ops=N ops_per_sec=R
 */
#define _GNU_SOURCE
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static struct io_uring ring;
static int p[2];
static char *heap_buf;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* noinline: the array is this frame's, below the caller's. */
static __attribute__((noinline)) int read_once(int heap)
{
	static const char msg[64] = "stack_reads";
	char buf[64];
	char *dst = heap ? heap_buf : buf;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int res;

	if (write(p[1], msg, sizeof(msg)) != sizeof(msg))
		return -1;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], dst, sizeof(msg), 0);
	if (io_uring_submit_and_wait(&ring, 1) != 1 || io_uring_wait_cqe(&ring, &cqe))
		return -1;
	res = cqe->res;
	io_uring_cqe_seen(&ring, cqe);
	return res == sizeof(msg) ? dst[0] : -1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	int heap = argc > 2 && !strcmp(argv[2], "heap");
	double t0, t1;
	int ret;

	heap_buf = malloc(64);
	if (argc < 2 || n <= 0 || !heap_buf || pipe(p)) {
		fprintf(stderr, "usage: stack_reads N [heap]\n");
		return 2;
	}
	ret = io_uring_queue_init(8, &ring, 0);
	if (ret < 0) {
		fprintf(stderr, "stack_reads: io_uring_queue_init: %s\n", strerror(-ret));
		return 1;
	}
	t0 = now();
	for (long i = 0; i < n; i++) {
		if (read_once(heap) != 's')
			return 1;
		syscall(SYS_getppid);	/* above the frame just left */
	}
	t1 = now();
	io_uring_queue_exit(&ring);
	printf("RESULT stack pid=%d ops=%ld ops_per_sec=%.0f\n", getpid(), n, n / (t1 - t0));
	return 0;
}
