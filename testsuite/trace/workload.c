// SPDX-License-Identifier: GPL-2.0
/*
 * workload: one request of each path the timeline must show
 * (testsuite/trace/validate.py checks them in the trace):
 *   a NOP                                  inline
 *   a READ of an empty pipe                poll-armed, then data
 *   a buffered WRITE linked to an FSYNC    a link chain; the FSYNC punted
 *   three NOPs linked                      a link chain of three
 *   a multishot RECV, three messages       one slice per CQE
 * Exits 1 if a result is not what it should be.
 */
#include "../cases/uc_test.h"

static struct io_uring_cqe *wl_wait(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;

	URING(io_uring_wait_cqe(ring, &cqe));
	return cqe;
}

static void wl_reap(struct io_uring *ring, int n)
{
	for (int i = 0; i < n; i++) {
		struct io_uring_cqe *cqe = wl_wait(ring);

		if (cqe->res < 0)
			fail("user_data %llu: %s", (unsigned long long)cqe->user_data,
			     strerror(-cqe->res));
		io_uring_cqe_seen(ring, cqe);
	}
}

int main(void)
{
	static char bufs[4][64];
	char path[] = "/tmp/uc-trace-XXXXXX", rbuf[8];
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	int p[2], sv[2], fd, more = 0;

	URING(io_uring_queue_init(32, &ring, 0));

	io_uring_prep_nop(get_sqe(&ring));
	submit_exact(&ring, 1);
	wl_reap(&ring, 1);

	SYS(pipe(p));
	io_uring_prep_read(get_sqe(&ring), p[0], rbuf, sizeof(rbuf), 0);
	submit_exact(&ring, 1);
	usleep(20000);
	SYS(write(p[1], "x", 1));
	wl_reap(&ring, 1);

	fd = SYS(mkstemp(path));
	unlink(path);
	sqe = get_sqe(&ring);
	io_uring_prep_write(sqe, fd, "some data", 9, 0);
	sqe->flags |= IOSQE_IO_LINK;
	io_uring_prep_fsync(get_sqe(&ring), fd, 0);
	submit_exact(&ring, 2);
	wl_reap(&ring, 2);

	for (int i = 0; i < 3; i++) {
		sqe = get_sqe(&ring);
		io_uring_prep_nop(sqe);
		if (i < 2)
			sqe->flags |= IOSQE_IO_LINK;
	}
	submit_exact(&ring, 3);
	wl_reap(&ring, 3);

	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	io_uring_prep_provide_buffers(get_sqe(&ring), bufs, sizeof(bufs[0]), 4, 1, 0);
	submit_exact(&ring, 1);
	wl_reap(&ring, 1);
	sqe = get_sqe(&ring);
	io_uring_prep_recv_multishot(sqe, sv[0], NULL, 0, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = 1;
	sqe->user_data = 77;
	submit_exact(&ring, 1);
	for (int i = 0; i < 3; i++) {
		struct io_uring_cqe *cqe;

		usleep(5000);
		SYS(write(sv[1], "msg", 3));
		cqe = wl_wait(&ring);
		if (cqe->res != 3 || !(cqe->flags & IORING_CQE_F_MORE))
			fail("multishot recv %d: res %d flags 0x%x", i, cqe->res, cqe->flags);
		more++;
		io_uring_cqe_seen(&ring, cqe);
	}
	SYS(close(sv[1]));	/* end of stream: its last CQE, without F_MORE */
	{
		struct io_uring_cqe *cqe = wl_wait(&ring);

		if (cqe->flags & IORING_CQE_F_MORE)
			fail("multishot recv did not end");
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	return more == 3 ? 0 : 1;
}
