/* uringcheck-test: expect=sync-overlap match="sync-overlap: read[(][)] stored into 4096 bytes that the in-flight WRITE still holds" */
/*
 * A store into a buffer an in-flight write is still sending: a WRITE of
 * buf waits on a full pipe (it copied nothing yet), and the program
 * read(2)s that very pipe into buf. The read gets the pipe's older bytes;
 * what the WRITE then sends is not what the program wrote. sync-overlap
 * (the call stores, the request loads), though both meet on one pipe.
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
	int p[2];

	SYS(pipe(p));
	filled = fill_pipe(p[1]);
	URING(io_uring_queue_init(8, &ring, 0));
	pattern(buf, sizeof(buf), 6);

	sqe = get_sqe(&ring);
	io_uring_prep_write(sqe, p[1], buf, sizeof(buf), 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "WRITE submitted");

	read_all(p[0], buf, sizeof(buf));	/* the bug: older bytes into buf */

	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != (int)sizeof(buf))
		fail("WRITE: user_data=%llu res=%d", (unsigned long long)c.user_data, c.res);
	read_all(p[0], drain, filled);
	io_uring_queue_exit(&ring);
	return 0;
}
