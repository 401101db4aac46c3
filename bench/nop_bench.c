// SPDX-License-Identifier: GPL-2.0
/*
 * nop_bench: io_uring NOP throughput, submitted and reaped in batches.
 *
 *   nop_bench [-n NOPS] [-b BATCH] [-w WARMUP] [-g GO_FIFO]
 *
 * Submits WARMUP NOPs (not timed), then NOPS NOPs in batches of BATCH
 * (default 32): fill BATCH SQEs, io_uring_submit_and_wait(BATCH), reap
 * the CQEs in one go. With -g it first creates GO_FIFO.ready.PID and
 * blocks opening GO_FIFO until the harness opens it for writing, so that
 * many instances start their timed loop together.
 *
 * Prints one line on stdout:
 *   RESULT nop pid=P ops=N batch=B submitted=S start_ns=T0 end_ns=T1 secs=X
 *          ops_per_sec=R cpu_ns_per_op=C
 * start_ns/end_ns are CLOCK_MONOTONIC (comparable across processes);
 * cpu_ns_per_op is this process's CPU time (user + kernel, which
 * includes BPF programs run on its behalf) over the timed loop / N.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static unsigned long long ns_of(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "nop_bench: %s: %s\n", what, strerror(err));
	exit(1);
}

static unsigned long long run(struct io_uring *ring, unsigned long long n,
			      unsigned batch)
{
	unsigned long long done = 0;

	while (done < n) {
		unsigned todo = n - done < batch ? (unsigned)(n - done) : batch;
		struct io_uring_cqe *cqes[256];
		unsigned got = 0;
		int ret;

		for (unsigned i = 0; i < todo; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

			if (!sqe)
				die("no SQE", EBUSY);
			io_uring_prep_nop(sqe);
			sqe->user_data = done + i;
		}
		ret = io_uring_submit_and_wait(ring, todo);
		if (ret < 0)
			die("io_uring_submit_and_wait", -ret);
		if ((unsigned)ret != todo)
			die("short submit", EIO);
		while (got < todo) {
			unsigned k = io_uring_peek_batch_cqe(ring, cqes, todo - got);

			if (!k) {
				struct io_uring_cqe *c;

				ret = io_uring_wait_cqe(ring, &c);
				if (ret < 0)
					die("io_uring_wait_cqe", -ret);
				continue;
			}
			for (unsigned i = 0; i < k; i++)
				if (cqes[i]->res < 0)
					die("NOP failed", -cqes[i]->res);
			io_uring_cq_advance(ring, k);
			got += k;
		}
		done += todo;
	}
	return done;
}

int main(int argc, char **argv)
{
	unsigned long long n = 1000000, warm = 20000, t0, t1, c0, c1;
	const char *go = NULL;
	unsigned batch = 32;
	struct io_uring ring;
	int opt, ret;

	while ((opt = getopt(argc, argv, "n:b:w:g:")) != -1) {
		switch (opt) {
		case 'n': n = strtoull(optarg, NULL, 0); break;
		case 'b': batch = strtoul(optarg, NULL, 0); break;
		case 'w': warm = strtoull(optarg, NULL, 0); break;
		case 'g': go = optarg; break;
		default:
			fprintf(stderr, "usage: nop_bench [-n NOPS] [-b BATCH] "
				"[-w WARMUP] [-g GO_FIFO]\n");
			return 2;
		}
	}
	if (batch == 0 || batch > 256 || n == 0) {
		fprintf(stderr, "nop_bench: need 1 <= BATCH <= 256 and NOPS > 0\n");
		return 2;
	}
	ret = io_uring_queue_init(batch < 64 ? 64 : batch, &ring, 0);
	if (ret < 0)
		die("io_uring_queue_init", -ret);
	run(&ring, warm, batch);

	if (go) {
		char ready[4096];
		int fd;

		snprintf(ready, sizeof(ready), "%s.ready.%d", go, (int)getpid());
		fd = open(ready, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0)
			die(ready, errno);
		close(fd);
		/* Blocks until the harness opens the FIFO for writing. */
		fd = open(go, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die(go, errno);
		close(fd);
	}

	c0 = ns_of(CLOCK_PROCESS_CPUTIME_ID);
	t0 = ns_of(CLOCK_MONOTONIC);
	run(&ring, n, batch);
	t1 = ns_of(CLOCK_MONOTONIC);
	c1 = ns_of(CLOCK_PROCESS_CPUTIME_ID);
	io_uring_queue_exit(&ring);

	printf("RESULT nop pid=%d ops=%llu batch=%u submitted=%llu start_ns=%llu "
	       "end_ns=%llu secs=%.6f ops_per_sec=%.0f cpu_ns_per_op=%.2f\n",
	       (int)getpid(), n, batch, n + warm, t0, t1, (t1 - t0) / 1e9,
	       n / ((t1 - t0) / 1e9), (double)(c1 - c0) / n);
	return 0;
}
