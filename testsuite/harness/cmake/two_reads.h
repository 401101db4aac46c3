/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by hazard_test.c and clean_test.c: two io_uring READs from two empty pipes,
 * submitted together so both are in flight at once, into b1 and b2. With
 * b1 == b2 that is an overlap hazard; with distinct buffers it is clean.
 * Returns 0 on success, 1 (with a message) on any unexpected result.
 */
#ifndef TWO_READS_H
#define TWO_READS_H

#include <liburing.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CHECK(cond, what) do { if (!(cond)) { \
	fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, what); \
	return 1; } } while (0)

static int two_reads(char *b1, char *b2, unsigned len)
{
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2], b[2], ret;

	CHECK(pipe(a) == 0 && pipe(b) == 0, "pipe");
	ret = io_uring_queue_init(8, &ring, 0);
	if (ret < 0) {
		fprintf(stderr, "io_uring_queue_init: %s\n", strerror(-ret));
		return 77; /* no io_uring here: skip rather than fail */
	}
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], b1, len, 0);
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, b[0], b2, len, 0);
	sqe->user_data = 2;
	CHECK(io_uring_submit(&ring) == 2, "io_uring_submit");
	CHECK(io_uring_cq_ready(&ring) == 0, "both READs still pending");

	CHECK(write(a[1], "first", 5) == 5, "write");
	CHECK(write(b[1], "second", 6) == 6, "write");
	for (int i = 0; i < 2; i++) {
		CHECK(io_uring_wait_cqe(&ring, &cqe) == 0, "io_uring_wait_cqe");
		CHECK(cqe->res == 5 || cqe->res == 6, "READ result");
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 0;
}

#endif
