/* uringcheck-test: expect=sync-overlap match="sync-overlap: pread64[(][)] stored into 4096 bytes that the in-flight READ still holds" */
/*
 * Among many: sixteen READs from empty pipes are in flight into the even
 * pages of area; the program reads a file with pread(2) into page 14,
 * the eighth READ's buffer, in the middle of the ring's read span (the
 * kernel's filter, bpf/sync_calls.bpf.h, must send it; user space finds
 * the one READ it meets). Its look-alikes, the pages between the READs,
 * are in ok_sync-overlap_index_lookalikes.c.
 */
#include "uc_test.h"

#define PAGE	4096
#define NREADS	16

static char area[32 * PAGE] __attribute__((aligned(PAGE)));

int main(void)
{
	char tmpl[] = "/tmp/uc_sync_XXXXXX";
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int p[NREADS][2], fd, want[NREADS];

	fd = SYS(mkstemp(tmpl));
	SYS(unlink(tmpl));
	feed(fd, PAGE, 9);
	URING(io_uring_queue_init(32, &ring, 0));
	for (int i = 0; i < NREADS; i++) {
		SYS(pipe(p[i]));
		sqe = get_sqe(&ring);
		io_uring_prep_read(sqe, p[i][0], area + 2 * i * PAGE, PAGE, 0);
		sqe->user_data = i;
		want[i] = 100;
	}
	submit_exact(&ring, NREADS);
	require_no_cqe(&ring, "READs submitted");

	if (SYS(pread(fd, area + 14 * PAGE, PAGE, 0)) != PAGE)	/* the bug */
		fail("pread: short");

	for (int i = 0; i < NREADS; i++)
		feed(p[i][1], 100, i);
	reap(&ring, want, NREADS);
	io_uring_queue_exit(&ring);
	return 0;
}
