/* uringcheck-test: expect=overlap */
/*
 * A READV with 20 iovecs of 64 bytes from an empty pipe; only iovec 17
 * points into other[], the rest into area[]. A plain READ into
 * other[32..96) is in flight at the same time and overlaps iovec 17 only.
 * Ranges past the few carried in the submit record travel in continuation
 * records: this is found only if those arrive and are checked.
 */
#include "uc_test.h"

#include <sys/uio.h>

#define NIOV 20

static char area[4096] __attribute__((aligned(4096)));
static char other[4096] __attribute__((aligned(4096)));
static struct iovec iov[NIOV];

int main(void)
{
	const int want[2] = { NIOV * 64, 64 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2], b[2];

	for (int i = 0; i < NIOV; i++)
		iov[i] = (struct iovec){ area + i * 128, 64 };
	iov[17] = (struct iovec){ other, 64 };	/* the overlapping one */

	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_readv(sqe, a[0], iov, NIOV, 0);
	sqe->user_data = 0;
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, b[0], other + 32, 64, 0);
	sqe->user_data = 1;
	submit_exact(&ring, 2);
	require_no_cqe(&ring, "READV and READ submitted");

	feed(a[1], NIOV * 64, 1);
	feed(b[1], 64, 2);
	reap(&ring, want, 2);

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 0;
}
