// SPDX-License-Identifier: GPL-2.0
/*
 * paths: requests whose path through the kernel is known, for the
 * profile's path attribution (testsuite/run.sh, section profile):
 *   100 NOPs                       inline
 *    10 READs of empty pipes       poll-armed (data arrives later)
 *    10 FSYNCs of a file           punted to io-wq (fsync never runs inline)
 *    10 NOPs with IOSQE_ASYNC      punted, because the program asked
 * and three registration calls: buffers registered, unregistered, and
 * unregistered again (ENXIO), timed from entry to the kernel's
 * io_uring_register tracepoint.
 * Prints nothing; exits 1 if a result is not what it should be.
 */
#include "../cases/uc_test.h"

#define NREAD 10

int main(void)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int pipes[NREAD][2], fd;
	char path[] = "/tmp/uc-paths-XXXXXX", buf[NREAD][8];

	URING(io_uring_queue_init(128, &ring, 0));
	for (int i = 0; i < 100; i++)
		io_uring_prep_nop(get_sqe(&ring));
	URING(io_uring_submit_and_wait(&ring, 100));
	for (int i = 0; i < 100; i++) {
		URING(io_uring_wait_cqe(&ring, &cqe));
		io_uring_cqe_seen(&ring, cqe);
	}

	for (int i = 0; i < NREAD; i++) {
		SYS(pipe(pipes[i]));
		io_uring_prep_read(get_sqe(&ring), pipes[i][0], buf[i], 8, 0);
	}
	URING(io_uring_submit(&ring));
	usleep(20000);		/* armed: nothing to read yet */
	for (int i = 0; i < NREAD; i++)
		SYS(write(pipes[i][1], "x", 1));
	for (int i = 0; i < NREAD; i++) {
		URING(io_uring_wait_cqe(&ring, &cqe));
		if (cqe->res != 1)
			fail("pipe read: %d", cqe->res);
		io_uring_cqe_seen(&ring, cqe);
	}

	fd = SYS(mkstemp(path));
	unlink(path);
	SYS(write(fd, "data", 4));
	for (int i = 0; i < 10; i++)
		io_uring_prep_fsync(get_sqe(&ring), fd, 0);
	for (int i = 0; i < 10; i++) {
		struct io_uring_sqe *sqe = get_sqe(&ring);

		io_uring_prep_nop(sqe);
		sqe->flags |= IOSQE_ASYNC;
	}
	URING(io_uring_submit_and_wait(&ring, 20));
	for (int i = 0; i < 20; i++) {
		URING(io_uring_wait_cqe(&ring, &cqe));
		if (cqe->res < 0)
			fail("fsync/nop: %d", cqe->res);
		io_uring_cqe_seen(&ring, cqe);
	}

	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };

	URING(io_uring_register_buffers(&ring, &iov, 1));
	URING(io_uring_unregister_buffers(&ring));
	if (io_uring_unregister_buffers(&ring) != -ENXIO)
		fail("a second unregister should fail with ENXIO");
	io_uring_queue_exit(&ring);
	return 0;
}
