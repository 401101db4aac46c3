/*
 * An overlap whose report must name these exact call sites (the lines
 * marked SITE: below), however the program is built: with or without
 * frame pointers, PIE or not, static with liburing.a. With "exit-now" it
 * exits right after the hazard (the stacks must still resolve).
 */
#include "../cases/uc_test.h"

static char buf[4096];

static void __attribute__((noinline)) queue_read(struct io_uring *ring, int fd,
						 unsigned long long ud)
{
	struct io_uring_sqe *sqe = get_sqe(ring);

	io_uring_prep_read(sqe, fd, buf, sizeof(buf), 0);
	sqe->user_data = ud;
}

void __attribute__((noinline)) submit_reads(struct io_uring *ring)
{
	int ret = io_uring_submit(ring); /* SITE:submit_reads */

	if (ret != 2)
		fail("io_uring_submit: %d", ret);
}

int main(int argc, char **argv)
{
	struct io_uring ring;
	int p1[2], p2[2];
	const int want[2] = { 10, 20 };

	SYS(pipe(p1));
	SYS(pipe(p2));
	URING(io_uring_queue_init(8, &ring, 0));
	queue_read(&ring, p1[0], 0);
	queue_read(&ring, p2[0], 1);
	submit_reads(&ring); /* SITE:main */
	if (argc > 1 && !strcmp(argv[1], "exit-now"))
		_exit(0);
	feed(p1[1], 10, 1);
	feed(p2[1], 20, 2);
	reap(&ring, want, 2);
	io_uring_queue_exit(&ring);
	/* "linger": stay a moment, for kernels whose mappings uringcheck
	 * reads from /proc (before 6.7), which a process that has exited
	 * no longer has */
	if (argc > 1 && !strcmp(argv[1], "linger"))
		usleep(300000);
	return 0;
}
