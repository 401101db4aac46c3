/* uringcheck-test: expect=overlap+bufreg-lifetime */
/*
 * The error that follows an early unregister (hazards.md §2): a
 * READ_FIXED on index 0 from an empty pipe is in flight when the table is
 * unregistered (a warning: the kernel keeps the old pages), and the
 * program, believing buf free, reads another pipe into it with a plain
 * READ while the READ_FIXED still runs. Both store into buf: overlap,
 * an error. The pipes are then written; both complete.
 */
#include "uc_test.h"

static char buf[4096] __attribute__((aligned(4096)));

int main(void)
{
	const int want[2] = { 100, 200 };
	struct iovec reg = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2], b[2];

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &ring, 0));
	URING(io_uring_register_buffers(&ring, &reg, 1));

	sqe = get_sqe(&ring);
	io_uring_prep_read_fixed(sqe, a[0], buf, sizeof(buf), 0, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ_FIXED submitted");
	URING(io_uring_unregister_buffers(&ring));	/* index 0 still in use */

	sqe = get_sqe(&ring);				/* buf "free": reused */
	io_uring_prep_read(sqe, b[0], buf, sizeof(buf), 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "the second READ submitted");

	feed(a[1], 100, 1);
	feed(b[1], 200, 2);
	reap(&ring, want, 2);
	io_uring_queue_exit(&ring);
	return 0;
}
