/* The overlapping pair is submitted from libucsubmit.so. */
#include "../cases/uc_test.h"

int lib_submit(struct io_uring *ring);

static char buf[4096];

int main(void)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	int p1[2], p2[2];
	const int want[2] = { 10, 20 };

	SYS(pipe(p1));
	SYS(pipe(p2));
	URING(io_uring_queue_init(8, &ring, 0));
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p1[0], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p2[0], buf, sizeof(buf), 0);
	sqe->user_data = 1;
	if (lib_submit(&ring) != 2) /* SITE:main */
		fail("lib_submit");
	feed(p1[1], 10, 1);
	feed(p2[1], 20, 2);
	reap(&ring, want, 2);
	io_uring_queue_exit(&ring);
	return 0;
}
