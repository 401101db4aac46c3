// SPDX-License-Identifier: GPL-2.0
/*
 * A program to attach to: it makes its ring and puts one READ in flight
 * at once (before any attach: the checker never sees it submitted), then
 * waits ARGV[1] ms, then submits two READs into one buffer (an overlap,
 * after the attach). All three complete; exit 0. ARGV[2]:
 *   clean     the two READs into two buffers
 *   early     the first of them into the early READ's buffer, which is
 *             in flight (a hazard the checker cannot see: counted only),
 *             the second into a buffer of its own
 *   tworings  as without, after a second ring of the same sizes made at
 *             the start: which descriptor is which cannot be told
 *   idle      no READs after the attach: the early READ's end is all
 *             the checker sees of the ring
 */
#include "../cases/uc_test.h"

static char early[4096], buf[2][4096];

int main(int argc, char **argv)
{
	int ms = argc > 1 ? atoi(argv[1]) : 1000;
	const char *how = argc > 2 ? argv[2] : "";
	int clean = !strcmp(how, "clean"), early_too = !strcmp(how, "early");
	struct io_uring twin;
	const int want[3] = { 10, 100, 200 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int e[2], a[2], b[2];

	SYS(pipe(e));
	SYS(pipe(a));
	SYS(pipe(b));
	if (!strcmp(how, "tworings"))
		URING(io_uring_queue_init(8, &twin, 0));
	URING(io_uring_queue_init(8, &ring, 0));
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, e[0], early, sizeof(early), 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);

	usleep(ms * 1000);
	if (!strcmp(how, "idle")) {
		feed(e[1], 10, 1);
		reap(&ring, want, 1);
		io_uring_queue_exit(&ring);
		return 0;
	}

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], early_too ? early : buf[0], sizeof(buf[0]), 0);
	sqe->user_data = 1;
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, b[0], buf[clean || early_too], sizeof(buf[0]), 0);
	sqe->user_data = 2;
	submit_exact(&ring, 2);
	feed(e[1], 10, 1);
	feed(a[1], 100, 2);
	feed(b[1], 200, 3);
	reap(&ring, want, 3);
	io_uring_queue_exit(&ring);
	return 0;
}
