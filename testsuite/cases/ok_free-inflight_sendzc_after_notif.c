/* uringcheck-test: expect=clean */
/*
 * Look-alike of inj_free-inflight_sendzc: the SEND_ZC's chunk is free()d
 * only after its notification CQE, when the kernel has let go of the
 * pages. Silent.
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

	zc_held_release(&ring, &z);
	free(buf);			/* legal: the notification has come */

	io_uring_queue_exit(&ring);
	zc_held_close(&z);
	return 0;
}
