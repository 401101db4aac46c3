/* uringcheck-test: expect=clean */
/*
 * The legal look-alikes of sync-overlap:
 *  - a WRITE from buf to a full pipe is in flight (it loads from buf);
 *    the program sends buf again with write(2): two loads, no conflict;
 *  - meanwhile it reads a file into other, next to buf: no shared byte;
 *  - after the WRITE's CQE, it reads the file into buf: the buffer is the
 *    program's again;
 *  - read(2) returning 0 bytes (EOF) into buf while a READ holds it
 *    stores nothing;
 *  - liburing's tests' idiom: a READ from a pipe into buf waits for data
 *    that the program writes into that pipe *from buf*: the write(2)
 *    loads buf before the READ can store into it (not judged: the data
 *    flow orders them);
 *  - and the mirror: a WRITE of buf into a pipe, and read(2) of that pipe
 *    into buf: the store comes after the WRITE's load.
 */
#include "uc_test.h"

static char buf[4096] __attribute__((aligned(4096)));
static char other[4096] __attribute__((aligned(4096)));

int main(void)
{
	char tmpl[] = "/tmp/uc_sync_XXXXXX";
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	int p[2], e[2], fd, null;
	static char drain[65536];
	size_t stuck;

	SYS(pipe(p));
	SYS(pipe(e));
	fd = SYS(mkstemp(tmpl));
	SYS(unlink(tmpl));
	feed(fd, 4096, 9);
	null = SYS(open("/dev/null", O_WRONLY));
	URING(io_uring_queue_init(8, &ring, 0));
	stuck = fill_pipe(p[1]);

	pattern(buf, sizeof(buf), 3);
	sqe = get_sqe(&ring);
	io_uring_prep_write(sqe, p[1], buf, sizeof(buf), 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "WRITE submitted");

	if (SYS(write(null, buf, sizeof(buf))) != sizeof(buf))	/* load + load */
		fail("write: short");
	if (SYS(pread(fd, other, sizeof(other), 0)) != sizeof(other))	/* elsewhere */
		fail("pread other: short");

	read_all(p[0], drain, stuck);			/* let the WRITE through */
	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != (int)sizeof(buf))
		fail("WRITE: user_data=%llu res=%d", (unsigned long long)c.user_data, c.res);
	read_all(p[0], drain, sizeof(buf));
	if (SYS(pread(fd, buf, sizeof(buf), 0)) != sizeof(buf))	/* after the CQE */
		fail("pread buf: short");

	/* A READ into buf in flight; read(2) at EOF into buf moves nothing. */
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, e[0], buf, sizeof(buf), 0);
	sqe->user_data = 2;
	submit_exact(&ring, 1);
	if (SYS(pread(fd, buf, sizeof(buf), 8192)) != 0)
		fail("pread at EOF: not 0");
	feed(e[1], 100, 1);
	c = wait_one(&ring);
	if (c.user_data != 2 || c.res != 100)
		fail("READ: user_data=%llu res=%d", (unsigned long long)c.user_data, c.res);

	/* The feeding idiom: the READ's data comes from its own buffer. */
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, e[0], buf, 64, 0);
	sqe->user_data = 3;
	submit_exact(&ring, 1);
	if (SYS(write(e[1], buf, 64)) != 64)
		fail("write: short");
	c = wait_one(&ring);
	if (c.user_data != 3 || c.res != 64)
		fail("READ 3: user_data=%llu res=%d", (unsigned long long)c.user_data, c.res);

	/* The mirror: read(2) into the buffer a WRITE sends into the pipe. */
	sqe = get_sqe(&ring);
	io_uring_prep_write(sqe, e[1], buf, 64, 0);
	sqe->user_data = 4;
	submit_exact(&ring, 1);
	c = wait_one(&ring);
	if (c.user_data != 4 || c.res != 64)
		fail("WRITE 4: user_data=%llu res=%d", (unsigned long long)c.user_data, c.res);
	read_all(e[0], buf, 64);

	io_uring_queue_exit(&ring);
	return 0;
}
