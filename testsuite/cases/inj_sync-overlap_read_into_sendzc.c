/* uringcheck-test: expect=sync-overlap match="sync-overlap: read[(][)] stored into 100 bytes that the in-flight SEND_ZC still holds" */
/*
 * A SEND_ZC of buf has posted its first CQE (F_MORE) but not its
 * notification (the receiver's window is closed: inj_sendzc_then_read.c
 * says how), so the kernel still holds buf's pages for transmission. A
 * plain read(2) stores into buf meanwhile: what goes on the wire depends
 * on timing. sync-overlap (the call stores, the request loads).
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

	feed(p[1], 100, 1);
	if (SYS(read(p[0], buf, 100)) != 100)	/* the bug */
		fail("short read");
	zc_held_release(&ring, &z);

	io_uring_queue_exit(&ring);
	close(p[0]); close(p[1]);
	zc_held_close(&z);
	return 0;
}
