/* uringcheck-profile-test: expect=worker-fan-out */
// SPDX-License-Identifier: GPL-2.0
/*
 * 48 SPLICEs out of empty pipes: splice cannot arm a poll, so each waits
 * for data in an io-wq worker of the unbounded pool (a pipe is not a
 * regular file), 48 workers alive at once for 1.5 s; then a byte in each
 * pipe ends them.
 */
#include "../cases/uc_test.h"

#include <dirent.h>

/* ok_worker-fan-out.c includes this file with 4 pipes: routine */
#ifndef N
#define N 48
#endif

static int workers(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		char path[300], comm[32] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		if ((f = fopen(path, "r"))) {
			n += fgets(comm, sizeof(comm), f) && !strncmp(comm, "iou-wrk-", 8);
			fclose(f);
		}
	}
	if (d)
		closedir(d);
	return n;
}

int main(void)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int p[N][2], q[N][2];

	URING(io_uring_queue_init(64, &ring, 0));
	for (int i = 0; i < N; i++) {
		struct io_uring_sqe *sqe = get_sqe(&ring);

		SYS(pipe(p[i]));
		SYS(pipe(q[i]));
		io_uring_prep_splice(sqe, p[i][0], -1, q[i][1], -1, 1, 0);
	}
	submit_exact(&ring, N);
	usleep(1500000);
	if (workers() < N / 2 || workers() > 2 * N)
		fail("%d io-wq workers: the test did not do what it says", workers());
	for (int i = 0; i < N; i++)
		SYS(write(p[i][1], "x", 1));
	for (int i = 0; i < N; i++) {
		URING(io_uring_wait_cqe(&ring, &cqe));
		if (cqe->res != 1)
			fail("splice: %d", cqe->res);
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	return 0;
}
