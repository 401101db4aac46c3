/*
 * A quiet hazard beside a busy instance (testsuite/run.sh, "stacks:
 * beside a busy instance"): a read from an empty pipe into buf is
 * submitted alone and stays in flight for DELAY_MS (default 1500), then
 * a second read into buf overlaps it. The first read's stack was
 * captured that long before the report prints it; the report must still
 * name both call sites (the lines marked SITE:).
 *
 *   held_overlap [DELAY_MS]
 */
#include "../cases/uc_test.h"

static char buf[4096];

int main(int argc, char **argv)
{
	int delay_ms = argc > 1 ? atoi(argv[1]) : 1500;
	const int want[2] = { 10, 20 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int p1[2], p2[2];

	SYS(pipe(p1));
	SYS(pipe(p2));
	URING(io_uring_queue_init(8, &ring, 0));
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p1[0], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	URING(io_uring_submit(&ring)); /* SITE:first */
	usleep((useconds_t)delay_ms * 1000);
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p2[0], buf, sizeof(buf), 0);
	sqe->user_data = 1;
	URING(io_uring_submit(&ring)); /* SITE:second */
	feed(p1[1], 10, 1);
	feed(p2[1], 20, 2);
	reap(&ring, want, 2);
	io_uring_queue_exit(&ring);
	return 0;
}
