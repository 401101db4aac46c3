/* uringcheck-test: expect=clean */
/*
 * Look-alike of inj_sync-overlap_read_into_sendzc: read(2) stores into
 * buf only after the SEND_ZC's notification CQE, when the kernel no
 * longer holds buf. Silent.
 */
#include "sendzc_held.h"

static char buf[4096] __attribute__((aligned(4096)));

int main(void)
{
	struct io_uring ring;
	struct zc_held z;
	int p[2];

	zc_held_open(&z);
	SYS(pipe(p));
	URING(io_uring_queue_init(8, &ring, 0));
	zc_held_send(&ring, &z, buf);

	zc_held_release(&ring, &z);
	feed(p[1], 100, 1);
	if (SYS(read(p[0], buf, 100)) != 100)	/* legal: after the notification */
		fail("short read");

	io_uring_queue_exit(&ring);
	close(p[0]); close(p[1]);
	zc_held_close(&z);
	return 0;
}
