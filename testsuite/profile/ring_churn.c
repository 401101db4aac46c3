// SPDX-License-Identifier: GPL-2.0
/*
 * ring_churn CLOSED [OPEN [SECS [PAUSE_MS]]]: CLOSED short-lived rings one
 * after the other (each: 4 NOPs, then closed; PAUSE_MS apart, 20), then OPEN rings at once, the first of
 * which does known work: 1000 NOPs in batches of 20 and 100 WRITEs of
 * 4096 bytes to /dev/null (409600 bytes); then SECS seconds asleep with
 * them open, and exit 0.
 *
 * A machine whose other processes open rings by the hundred (-a) in
 * small: more rings over the run than --profile-rings has slots, never
 * more open at once. With closed rings' slots freed, the long-lived ring
 * is profiled and its figures are exact (testsuite/profile/tests.sh,
 * "profile: slots").
 */
#include "../cases/uc_test.h"

#include <time.h>

static void nops(struct io_uring *ring, int n)
{
	struct io_uring_cqe *cqe;

	for (int i = 0; i < n; i++)
		io_uring_prep_nop(get_sqe(ring));
	URING(io_uring_submit_and_wait(ring, n));
	for (int i = 0; i < n; i++) {
		URING(io_uring_wait_cqe(ring, &cqe));
		io_uring_cqe_seen(ring, cqe);
	}
}

int main(int argc, char **argv)
{
	int closed = argc > 1 ? atoi(argv[1]) : 40;
	int open_n = argc > 2 ? atoi(argv[2]) : 1;
	double secs = argc > 3 ? atof(argv[3]) : 0;
	int pause_ms = argc > 4 ? atoi(argv[4]) : 20;
	static char buf[4096];
	struct io_uring *rings;
	struct io_uring_cqe *cqe;
	struct timespec pause = { pause_ms / 1000, (pause_ms % 1000) * 1000000L };
	int fd = SYS(open("/dev/null", O_WRONLY));

	for (int i = 0; i < closed; i++) {
		struct io_uring r;

		URING(io_uring_queue_init(8, &r, 0));
		nops(&r, 4);
		io_uring_queue_exit(&r);
		/* the ring's teardown runs in a kernel worker, and its slot
		 * is collected by uringcheck's thread: a pause lets both
		 * run on a loaded machine (a ring opened before any slot is
		 * collected goes unprofiled, and is said to) */
		nanosleep(&pause, NULL);
	}
	if (open_n < 1)
		return 0;
	rings = calloc(open_n, sizeof(*rings));
	if (!rings)
		fail("calloc");
	for (int i = 0; i < open_n; i++)
		URING(io_uring_queue_init(32, &rings[i], 0));
	for (int b = 0; b < 50; b++)
		nops(&rings[0], 20);
	for (int i = 0; i < 100; i++) {
		io_uring_prep_write(get_sqe(&rings[0]), fd, buf, sizeof(buf), 0);
		URING(io_uring_submit_and_wait(&rings[0], 1));
		URING(io_uring_wait_cqe(&rings[0], &cqe));
		if (cqe->res != (int)sizeof(buf))
			fail("write to /dev/null: %d", cqe->res);
		io_uring_cqe_seen(&rings[0], cqe);
	}
	if (secs > 0) {
		struct timespec t = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };

		nanosleep(&t, NULL);
	}
	for (int i = 0; i < open_n; i++)
		io_uring_queue_exit(&rings[i]);
	return 0;
}
