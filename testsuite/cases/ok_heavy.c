/* uringcheck-test: expect=clean timeout=60 */
/*
 * Throughput / no-false-positive test: 300000 READs of a 1 MiB temp file
 * (page cache) into a rotating set of 64 buffers at queue depth 64. A
 * buffer is reused only after the CQE of the previous READ into it was
 * reaped, so no two in-flight requests ever share memory: no hazard.
 * Takes well under a second without the checker.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "uc_test.h"

/* ---- end of common helpers ---- */

#define QD 64
#define BSZ 4096
#define FILE_SZ (1 << 20)
#define TOTAL 300000UL

static char bufs[QD][BSZ] __attribute__((aligned(4096)));

static void queue_read(struct io_uring *ring, int fd, unsigned slot, unsigned long n)
{
	struct io_uring_sqe *sqe = get_sqe(ring);

	io_uring_prep_read(sqe, fd, bufs[slot], BSZ, (n * BSZ) % FILE_SZ);
	sqe->user_data = ((uint64_t)n << 8) | slot;
}

int main(void)
{
	char tmpl[] = "/tmp/uc_heavy_XXXXXX";
	static char blk[BSZ];
	unsigned long submitted = 0, done = 0;
	struct io_uring ring;
	int fd;

	fd = SYS(mkstemp(tmpl));
	SYS(unlink(tmpl));
	for (int i = 0; i < FILE_SZ / BSZ; i++) {
		memset(blk, i, BSZ);
		write_all(fd, blk, BSZ);
	}
	URING(io_uring_queue_init(QD, &ring, 0));

	for (unsigned s = 0; s < QD; s++)
		queue_read(&ring, fd, s, submitted++);
	while (done < TOTAL) {
		struct io_uring_cqe *cqes[QD];
		unsigned free_slots[QD];
		unsigned n;

		URING(io_uring_submit_and_wait(&ring, 1));
		n = io_uring_peek_batch_cqe(&ring, cqes, QD);
		if (!n)
			fail("no completion after submit_and_wait");
		for (unsigned i = 0; i < n; i++) {
			uint64_t ud = cqes[i]->user_data;
			unsigned slot = ud & 0xff;
			unsigned long req = ud >> 8;
			char expect = (char)((req * BSZ % FILE_SZ) / BSZ);

			if (cqes[i]->res != BSZ)
				fail("READ %lu: res=%d", req, cqes[i]->res);
			if (bufs[slot][0] != expect || bufs[slot][BSZ - 1] != expect)
				fail("READ %lu: wrong data in buffer %u", req, slot);
			free_slots[i] = slot;
		}
		io_uring_cq_advance(&ring, n);	/* reaped: these buffers are free */
		done += n;
		for (unsigned i = 0; i < n && submitted < TOTAL; i++)
			queue_read(&ring, fd, free_slots[i], submitted++);
	}
	if (submitted != TOTAL || io_uring_cq_ready(&ring) || io_uring_sq_ready(&ring))
		fail("accounting error: submitted %lu done %lu", submitted, done);

	io_uring_queue_exit(&ring);
	close(fd);
	return 0;
}
