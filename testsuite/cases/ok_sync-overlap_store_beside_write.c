/* uringcheck-test: expect=clean */
/*
 * Legal stores near a buffer an in-flight write sends:
 *  - a WRITE of buf[0, 2048) waits on a full pipe; read(2) fills
 *    buf[2048, 4096), which only touches it (end == start);
 *  - after the WRITE's CQE, read(2) refills buf[0, 2048): the buffer is
 *    the program's again;
 *  - a WRITE of buf into a pipe with room completes at once (its load
 *    is over at its CQE); read(2) of that pipe into buf after the CQE.
 */
#include "uc_test.h"

static char buf[4096] __attribute__((aligned(4096)));
static char drain[65536];

int main(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	size_t filled;
	int p[2], q[2];

	SYS(pipe(p));
	SYS(pipe(q));
	filled = fill_pipe(p[1]);
	URING(io_uring_queue_init(8, &ring, 0));
	pattern(buf, sizeof(buf), 6);

	sqe = get_sqe(&ring);
	io_uring_prep_write(sqe, p[1], buf, 2048, 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "WRITE submitted");

	feed(q[1], 2048, 3);
	read_all(q[0], buf + 2048, 2048);	/* beside it */

	read_all(p[0], drain, filled);		/* room: the WRITE completes */
	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != 2048)
		fail("WRITE: user_data=%llu res=%d", (unsigned long long)c.user_data, c.res);
	read_all(p[0], buf, 2048);		/* after its CQE */

	sqe = get_sqe(&ring);
	io_uring_prep_write(sqe, q[1], buf, 64, 0);
	sqe->user_data = 2;
	submit_exact(&ring, 1);
	c = wait_one(&ring);
	if (c.user_data != 2 || c.res != 64)
		fail("WRITE 2: user_data=%llu res=%d", (unsigned long long)c.user_data, c.res);
	read_all(q[0], buf, 64);
	io_uring_queue_exit(&ring);
	return 0;
}
