// SPDX-License-Identifier: GPL-2.0
/*
 * A program another instance follows when the checker attaches to it: it
 * makes its ring and passes a NOP through it at once (the ring is then
 * tracked, and listed as the process's own: bpf/ring_index.bpf.h), waits
 * ARGV[1] ms, then puts a READ from an empty pipe in flight into a
 * buffer and pread(2)s a file into that buffer (sync-overlap, after the
 * attach), and lets the READ land. Exit 0.
 */
#include "../cases/uc_test.h"

static char buf[4096] __attribute__((aligned(4096)));

int main(int argc, char **argv)
{
	int ms = argc > 1 ? atoi(argv[1]) : 1000, p[2], fd, want = 100;
	char tmpl[] = "/tmp/uc_late_sync_XXXXXX";
	struct io_uring_sqe *sqe;
	struct io_uring ring;

	fd = SYS(mkstemp(tmpl));
	SYS(unlink(tmpl));
	feed(fd, sizeof(buf), 9);
	SYS(pipe(p));
	URING(io_uring_queue_init(8, &ring, 0));
	io_uring_prep_nop(get_sqe(&ring));
	submit_exact(&ring, 1);
	wait_one(&ring);

	usleep(ms * 1000);
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");
	if (SYS(pread(fd, buf, sizeof(buf), 0)) != sizeof(buf))	/* the bug */
		fail("pread: short");
	feed(p[1], 100, 1);
	reap(&ring, &want, 1);
	io_uring_queue_exit(&ring);
	return 0;
}
