/* uringcheck-profile-test: expect=clean */
// SPDX-License-Identifier: GPL-2.0
/*
 * 2000 FSYNCs and 2000 STATXs, 16 per io_uring_submit: the kernel sends
 * every one of them to the io-wq worker pool (their prep forces it), so
 * the punts are its design and no flag or file type would avoid them.
 * punt-ratio must stay silent (lib/opcodes.def: async ALWAYS). Batched,
 * so the batching rule stays silent; reaped at once, so nothing else
 * fires.
 */
#include "../cases/uc_test.h"

#include <fcntl.h>
#include <sys/stat.h>

static void round_of(struct io_uring *ring, int fd, const char *path, struct statx *stx)
{
	struct io_uring_cqe *cqe;

	for (int i = 0; i < 16; i++) {
		if (i % 2)
			io_uring_prep_fsync(get_sqe(ring), fd, IORING_FSYNC_DATASYNC);
		else
			io_uring_prep_statx(get_sqe(ring), AT_FDCWD, path, 0,
					    STATX_SIZE, &stx[i]);
	}
	submit_exact(ring, 16);
	for (int i = 0; i < 16; i++) {
		URING(io_uring_wait_cqe(ring, &cqe));
		if (cqe->res < 0)
			fail("fsync/statx: %s", strerror(-cqe->res));
		io_uring_cqe_seen(ring, cqe);
	}
}

int main(void)
{
	char path[] = "/tmp/uc-punt-XXXXXX";
	static struct statx stx[16];
	struct io_uring ring;
	int fd = SYS(mkstemp(path));

	SYS(write(fd, "some data", 9));
	URING(io_uring_queue_init(32, &ring, 0));
	for (int round = 0; round < 250; round++)
		round_of(&ring, fd, path, stx);
	io_uring_queue_exit(&ring);
	unlink(path);
	return 0;
}
