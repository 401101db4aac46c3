/* uringcheck-test: expect=free-inflight match="free\(\) of heap chunk 0x[0-9a-f]+ \(4104 usable bytes\)" */
/*
 * A READ from an empty pipe into a 4 KiB malloc() chunk is in flight when
 * the chunk is free()d, as in inj_free-inflight_malloc; but the program
 * frees it only once its own libc's free is probed (wait_free_probed):
 * the runner's "containers: mountns libc" runs it with a libc of its
 * mount namespace's own, which the checker probes at its first ring,
 * through its root (checker/mapped_files.h). Here the libc is the
 * system's, probed before the program ran: the wait ends at once.
 */
#include "uc_test.h"

int main(void)
{
	struct io_uring ring;
	char *buf;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	buf = malloc(4096);
	if (!buf)
		fail("malloc");
	read_in_flight(&ring, a[0], buf, 7);
	wait_free_probed();
	free(buf);				/* while the READ is in flight */
	read_lands(&ring, a[1], 7, NULL);
	io_uring_queue_exit(&ring);
	return 0;
}
