/* uringcheck-test: expect=clean */
/*
 * The legal look-alikes around the kernel's sync-call filter (each ring's
 * span of its in-flight reads, bpf/sync_calls.bpf.h), phase by phase;
 * every call here must stay silent, whichever side judges it:
 *  1. sixteen READs from empty pipes in flight into the even pages of
 *     area (0, 2, ..., 30): pread(2)s into the odd pages between them
 *     (inside the span: sent, and cleared by user space against the
 *     ranges themselves), into page 31 just past the last READ and into
 *     other (outside the span: cleared in the kernel);
 *  2. a WRITE from wbuf into a full pipe alone in flight: a pwrite from
 *     wbuf loads from a buffer a write loads from, which is no conflict
 *     (the ring's read span is empty: cleared in the kernel), and a pread
 *     into other stores outside every request's bytes (cleared in the
 *     kernel against the span of all in-flight requests). A pread into
 *     wbuf would be a finding: the write has not copied it out yet
 *     (inj_sync-overlap_read_into_write.c);
 *  3. a READV of six iovecs (the even pages 0..10) in flight: its ranges
 *     do not fit one record, so the span is the whole address space
 *     (the index "overflows"): preads into the odd pages 1, 3 and 9 and
 *     into other are all sent, and user space clears them.
 * The runner's "sync: kernel index" test reads the counters of this run
 * (sync_calls_cleared_in_kernel, sync_calls_sent_unindexed).
 */
#include "uc_test.h"
#include <sys/uio.h>

#define PAGE	4096
#define NREADS	16

static char area[32 * PAGE] __attribute__((aligned(PAGE)));
static char other[PAGE] __attribute__((aligned(PAGE)));
static char wbuf[PAGE] __attribute__((aligned(PAGE)));

static void pread_page(int fd, char *p)
{
	if (SYS(pread(fd, p, PAGE, 0)) != PAGE)
		fail("pread: short");
}

int main(void)
{
	char tmpl[] = "/tmp/uc_sync_XXXXXX";
	static char drain[65536];
	struct iovec iov[6];
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int p[NREADS][2], w[2], fd, want[NREADS];
	size_t stuck;

	fd = SYS(mkstemp(tmpl));
	SYS(unlink(tmpl));
	feed(fd, PAGE, 9);
	for (int i = 0; i < NREADS; i++)
		SYS(pipe(p[i]));
	SYS(pipe(w));
	URING(io_uring_queue_init(32, &ring, 0));

	/* 1: many reads, gaps between them */
	for (int i = 0; i < NREADS; i++) {
		sqe = get_sqe(&ring);
		io_uring_prep_read(sqe, p[i][0], area + 2 * i * PAGE, PAGE, 0);
		sqe->user_data = i;
		want[i] = 100;
	}
	submit_exact(&ring, NREADS);
	require_no_cqe(&ring, "READs submitted");
	for (int i = 1; i < 30; i += 2)
		pread_page(fd, area + i * PAGE);		/* between two READs */
	pread_page(fd, area + 31 * PAGE);			/* past the last */
	pread_page(fd, other);					/* elsewhere */
	for (int i = 0; i < NREADS; i++)
		feed(p[i][1], 100, i);
	reap(&ring, want, NREADS);

	/* 2: a write alone in flight */
	stuck = fill_pipe(w[1]);
	pattern(wbuf, PAGE, 3);
	sqe = get_sqe(&ring);
	io_uring_prep_write(sqe, w[1], wbuf, PAGE, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "WRITE submitted");
	if (pwrite(fd, wbuf, PAGE, 0) != PAGE)		/* load vs load */
		fail("pwrite: %s", strerror(errno));
	pread_page(fd, other);				/* outside every range */
	read_all(w[0], drain, stuck);
	want[0] = PAGE;
	reap(&ring, want, 1);
	read_all(w[0], drain, PAGE);

	/* 3: a read whose ranges do not fit its record */
	for (int i = 0; i < 6; i++) {
		iov[i].iov_base = area + 2 * i * PAGE;
		iov[i].iov_len = PAGE;
	}
	sqe = get_sqe(&ring);
	io_uring_prep_readv(sqe, p[0][0], iov, 6, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READV submitted");
	pread_page(fd, area + 1 * PAGE);
	pread_page(fd, area + 3 * PAGE);
	pread_page(fd, area + 9 * PAGE);
	pread_page(fd, other);
	feed(p[0][1], 100, 1);
	want[0] = 100;
	reap(&ring, want, 1);

	io_uring_queue_exit(&ring);
	return 0;
}
