// SPDX-License-Identifier: GPL-2.0
/*
 * One IORING_OP_PIPE (v6.16+): it stores two descriptors into user
 * memory, and the checker reads no range for it. The run must say it
 * did not judge that request (UC_STAT_OPS_UNJUDGED), not pass it over.
 * Exits 77 when the kernel has no PIPE opcode.
 */
#include "../cases/uc_test.h"

int main(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	int fds[2] = { -1, -1 };

	URING(io_uring_queue_init(4, &ring, 0));
	sqe = get_sqe(&ring);
	io_uring_prep_rw(62 /* IORING_OP_PIPE */, sqe, 0, fds, 0, 0);
	sqe->user_data = 7;
	submit_exact(&ring, 1);
	c = wait_one(&ring);
	io_uring_queue_exit(&ring);
	if (c.res == -EINVAL)
		return 77;		/* no PIPE opcode on this kernel */
	if (c.res < 0)
		fail("pipe: %s", strerror(-c.res));
	return fds[0] >= 0 && fds[1] >= 0 ? 0 : 1;
}
