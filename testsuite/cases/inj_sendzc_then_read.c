/* uringcheck-test: expect=overlap */
/*
 * SEND_ZC keeps the user buffer pinned until its *notification* CQE
 * (IORING_CQE_F_NOTIF) is posted, even though the first CQE (res = bytes
 * queued, IORING_CQE_F_MORE) already arrived. The request is in flight until
 * that final notification.
 *
 * Determinism: a TCP loopback connection whose receiver has a tiny receive
 * buffer and never reads. We send until the receiver's window is closed and
 * data sits unsent in the sender's write queue, while the sender still has
 * send-buffer space. A SEND_ZC of buf[0..128) is then queued (first CQE
 * arrives) but cannot be transmitted, let alone acknowledged, so its
 * notification cannot arrive until we drain the receiver. While the
 * SEND_ZC still holds buf, a READ from an empty pipe into buf[64..192) is
 * submitted: overlap (sink vs a source whose buffer is still held).
 */
#include "sendzc_held.h"

static char buf[4096] __attribute__((aligned(4096)));

int main(void)
{
	struct io_uring_sqe *sqe;
	struct cqe_copy c;
	struct io_uring ring;
	struct zc_held z;
	int p[2];

	zc_held_open(&z);
	SYS(pipe(p));
	URING(io_uring_queue_init(8, &ring, 0));
	zc_held_send(&ring, &z, buf);

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], buf + 64, 128, 0);
	sqe->user_data = 1;
	submit_exact(&ring, 1);
	usleep(10 * 1000);
	require_no_cqe(&ring, "READ submitted while SEND_ZC holds buf");

	/* complete the READ, then let the SEND_ZC's notification come */
	feed(p[1], 128, 1);
	c = wait_one(&ring);
	if (c.user_data != 1 || c.res != 128)
		fail("READ: user_data=%llu res=%d, expected 1 / 128",
		     (unsigned long long)c.user_data, c.res);
	zc_held_release(&ring, &z);

	io_uring_queue_exit(&ring);
	close(p[0]); close(p[1]);
	zc_held_close(&z);
	return 0;
}
