/* uringcheck-test: expect=sync-overlap match="sync-overlap: pread64[(][)] stored into 4096 bytes that the in-flight READ still holds" */
/*
 * More rings than a process's own ring list holds (UC_PROC_RINGS, 5:
 * bpf/ring_index.bpf.h): twelve rings open at once, a READ from an empty
 * pipe in flight on the last one, and a pread(2) into its buffer. The
 * kernel side must still find the ring (its visits of the process's
 * rings walk the whole ring list then, and count that: JSON
 * ring_visits_of_every_ring, checked by the runner's "rings: more than
 * the list holds").
 */
#include "uc_test.h"

#define PAGE	4096
#define NRINGS	12

static char buf[PAGE] __attribute__((aligned(PAGE)));

int main(void)
{
	char tmpl[] = "/tmp/uc_sync_XXXXXX";
	struct io_uring ring[NRINGS];
	struct io_uring_sqe *sqe;
	int p[2], fd, want = 100;

	fd = SYS(mkstemp(tmpl));
	SYS(unlink(tmpl));
	feed(fd, PAGE, 9);
	SYS(pipe(p));
	for (int i = 0; i < NRINGS; i++) {
		URING(io_uring_queue_init(4, &ring[i], 0));
		sqe = get_sqe(&ring[i]);
		io_uring_prep_nop(sqe);
		submit_exact(&ring[i], 1);
		wait_one(&ring[i]);
	}
	sqe = get_sqe(&ring[NRINGS - 1]);
	io_uring_prep_read(sqe, p[0], buf, PAGE, 0);
	sqe->user_data = 0;
	submit_exact(&ring[NRINGS - 1], 1);
	require_no_cqe(&ring[NRINGS - 1], "READ submitted");

	if (SYS(pread(fd, buf, PAGE, 0)) != PAGE)	/* the bug */
		fail("pread: short");

	feed(p[1], 100, 1);
	reap(&ring[NRINGS - 1], &want, 1);
	for (int i = 0; i < NRINGS; i++)
		io_uring_queue_exit(&ring[i]);
	return 0;
}
