/* uringcheck-test: expect=free-inflight match="free\(\) of heap chunk" */
/*
 * A SEND_ZC of a malloc()ed chunk: its first CQE (F_MORE) has come, but
 * the kernel still holds the pages until the notification CQE, which
 * cannot come while the receiver's window is closed (see
 * sendzc_held.h for the set-up). The chunk is free()d in
 * between: free-inflight. The request that holds the memory is the
 * notification's, not the first CQE's.
 */
#include "sendzc_held.h"

int main(void)
{
	struct io_uring ring;
	struct zc_held z;
	char *buf = malloc(4096);

	if (!buf)
		fail("malloc");
	zc_held_open(&z);
	URING(io_uring_queue_init(8, &ring, 0));
	zc_held_send(&ring, &z, buf);

	free(buf);			/* the bug: the notification has not come */
	zc_held_release(&ring, &z);

	io_uring_queue_exit(&ring);
	zc_held_close(&z);
	return 0;
}
