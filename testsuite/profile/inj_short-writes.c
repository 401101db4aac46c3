/* uringcheck-profile-test: expect=short-writes */
// SPDX-License-Identifier: GPL-2.0
/*
 * 20 WRITEs of 128 KiB into a non-blocking pipe that holds 64 KiB: each
 * moves 64 KiB and succeeds short. The pipe is drained between them.
 */
#include "../cases/uc_test.h"

/* ok_short-writes.c includes this file with 4 KiB writes, which fit */
#ifndef LEN
#define LEN (128 * 1024)
#endif
#define WANT_SHORT (LEN > 64 * 1024)

int main(void)
{
	static char buf[LEN], sink[LEN];
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int p[2], shorts = 0;

	SYS(pipe2(p, O_NONBLOCK));
	SYS(fcntl(p[1], F_SETPIPE_SZ, 64 * 1024));
	URING(io_uring_queue_init(8, &ring, 0));
	for (int i = 0; i < 20; i++) {
		io_uring_prep_write(get_sqe(&ring), p[1], buf, LEN, 0);
		submit_exact(&ring, 1);
		URING(io_uring_wait_cqe(&ring, &cqe));
		if (cqe->res <= 0)
			fail("write: %d", cqe->res);
		shorts += cqe->res < LEN;
		io_uring_cqe_seen(&ring, cqe);
		while (read(p[0], sink, sizeof(sink)) > 0)
			;
	}
	if (WANT_SHORT ? shorts < 10 : shorts != 0)
		fail("%d short writes: the test did not do what it says", shorts);
	io_uring_queue_exit(&ring);
	return 0;
}
