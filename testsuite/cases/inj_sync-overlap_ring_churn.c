/* uringcheck-test: expect=sync-overlap match="sync-overlap: pread64[(][)] stored into 4096 bytes that the in-flight READ still holds" */
/*
 * A process's own ring list (bpf/ring_index.bpf.h) after churn. The
 * program makes twelve rings at once, seven more than its list holds,
 * and closes them: the list is whole again. It makes four rings and
 * closes them; a child it forks then makes four of its own and holds
 * them, so that the program's next four rings
 * take other places in the machine's ring list than its first four did.
 * A READ from an empty pipe is in flight on the last of them, and a
 * pread(2) goes into its buffer. Had the list kept the closed rings, it
 * would hold eight, more than its five: the runner's "rings: churn"
 * checks that no visit walked the whole ring list.
 */
#include "uc_test.h"

#include <sys/wait.h>

#define PAGE	4096
#define NRINGS	4
#define NMANY	12

static char buf[PAGE] __attribute__((aligned(PAGE)));

static void make_rings(struct io_uring *ring, int n)
{
	for (int i = 0; i < n; i++) {
		URING(io_uring_queue_init(4, &ring[i], 0));
		io_uring_prep_nop(get_sqe(&ring[i]));
		submit_exact(&ring[i], 1);
		wait_one(&ring[i]);
	}
}

int main(void)
{
	char tmpl[] = "/tmp/uc_sync_XXXXXX", c;
	struct io_uring ring[NMANY];
	struct io_uring_sqe *sqe;
	int p[2], up[2], down[2], fd, want = 100, status;
	pid_t child;

	fd = SYS(mkstemp(tmpl));
	SYS(unlink(tmpl));
	feed(fd, PAGE, 9);
	SYS(pipe(p));
	SYS(pipe(up));
	SYS(pipe(down));

	make_rings(ring, NMANY);
	for (int i = 0; i < NMANY; i++)
		io_uring_queue_exit(&ring[i]);
	make_rings(ring, NRINGS);
	for (int i = 0; i < NRINGS; i++)
		io_uring_queue_exit(&ring[i]);

	child = SYS(fork());
	if (child == 0) {
		make_rings(ring, NRINGS);
		write_all(up[1], "r", 1);
		read_all(down[0], &c, 1);	/* held until the parent is done */
		for (int i = 0; i < NRINGS; i++)
			io_uring_queue_exit(&ring[i]);
		_exit(0);
	}
	read_all(up[0], &c, 1);

	make_rings(ring, NRINGS);
	sqe = get_sqe(&ring[NRINGS - 1]);
	io_uring_prep_read(sqe, p[0], buf, PAGE, 0);
	sqe->user_data = 0;
	submit_exact(&ring[NRINGS - 1], 1);
	require_no_cqe(&ring[NRINGS - 1], "READ submitted");

	if (SYS(pread(fd, buf, PAGE, 0)) != PAGE)	/* the bug */
		fail("pread: short");

	feed(p[1], 100, 1);
	reap(&ring[NRINGS - 1], &want, 1);
	for (int i = 0; i < NRINGS; i++)
		io_uring_queue_exit(&ring[i]);
	write_all(down[1], "d", 1);
	SYS(waitpid(child, &status, 0));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail("child: status %#x", status);
	return 0;
}
