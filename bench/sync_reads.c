// SPDX-License-Identifier: GPL-2.0
/*
 * sync_reads: plain pread(2)s of 4 KiB from a (page-cached) file, in a
 * process that has an io_uring ring: what the sync-overlap hook costs a
 * program's ordinary system calls.
 *
 *   sync_reads FILE N [busy [RINGS]]
 *
 * idle (default): the ring has nothing in flight, which is when the hook
 * must cost next to nothing; busy: a READ from an empty pipe stays in
 * flight into another buffer the whole time, so every pread is sent to
 * the checker and judged (no overlap: a clean run). With RINGS, the
 * program first makes that many rings at once (a NOP through each) and
 * closes them: a process that once had many rings (the checker's visits
 * of a process's rings must not cost the rings it no longer has, nor
 * another process's: bpf/ring_index.bpf.h).
 *
 * Prints: RESULT sync pid=P ops=N ops_per_sec=R cpu_ns_per_op=C
 * cpu_ns_per_op: this process's CPU time (user + kernel, which includes
 * the BPF programs run at its system calls) over the timed loop / N: the
 * steadier figure on a shared machine, where the wall clock waits for
 * other work.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char buf[4096] __attribute__((aligned(4096)));
static char held[4096] __attribute__((aligned(4096)));

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 200000;
	int busy = argc > 3 && !strcmp(argv[3], "busy");
	long rings = argc > 4 ? atol(argv[4]) : 0;
	struct io_uring ring;
	off_t size, off = 0;
	int fd, p[2], ret;
	double t0, t1, c0, c1;

	if (argc < 3 || n <= 0 || rings < 0) {
		fprintf(stderr, "usage: sync_reads FILE N [busy [RINGS]]\n");
		return 2;
	}
	if (rings) {
		struct io_uring *many = calloc(rings, sizeof(*many));
		struct rlimit rl;

		/* a descriptor a ring: up to the hard limit */
		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
		for (long i = 0; many && i < rings; i++) {
			ret = io_uring_queue_init(2, &many[i], 0);
			if (ret < 0) {
				fprintf(stderr, "sync_reads: ring %ld: %s\n", i, strerror(-ret));
				return 1;
			}
			struct io_uring_cqe *cqe;

			io_uring_prep_nop(io_uring_get_sqe(&many[i]));
			io_uring_submit_and_wait(&many[i], 1);
			if (!io_uring_peek_cqe(&many[i], &cqe))
				io_uring_cqe_seen(&many[i], cqe);
		}
		for (long i = 0; many && i < rings; i++)
			io_uring_queue_exit(&many[i]);
		free(many);
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || pipe(p)) {
		perror("sync_reads: open");
		return 1;
	}
	size = lseek(fd, 0, SEEK_END);
	if (size < (off_t)sizeof(buf)) {
		fprintf(stderr, "sync_reads: %s is too small\n", argv[1]);
		return 1;
	}
	ret = io_uring_queue_init(8, &ring, 0);
	if (ret < 0) {
		fprintf(stderr, "sync_reads: io_uring_queue_init: %s\n", strerror(-ret));
		return 1;
	}
	if (busy) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_read(sqe, p[0], held, sizeof(held), 0);
		io_uring_submit(&ring);
	}
	t0 = now();
	c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	for (long i = 0; i < n; i++) {
		if (pread(fd, buf, sizeof(buf), off) != sizeof(buf)) {
			perror("sync_reads: pread");
			return 1;
		}
		off += sizeof(buf);
		if (off + (off_t)sizeof(buf) > size)
			off = 0;
	}
	c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	t1 = now();
	if (busy) {
		struct io_uring_cqe *cqe;

		if (write(p[1], "x", 1) != 1 || io_uring_wait_cqe(&ring, &cqe))
			return 1;
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	printf("RESULT sync pid=%d ops=%ld ops_per_sec=%.0f cpu_ns_per_op=%.1f\n", getpid(), n,
	       n / (t1 - t0), (c1 - c0) * 1e9 / n);
	return 0;
}
