/*
 * copy_reuse SRC DST -- copy a file with io_uring, two reads in flight.
 *
 * THE BUG: the buffer-ring index `head` is advanced once per batch instead
 * of once per read, so read k and read k+1 of a batch are both submitted
 * into the same 64 KiB buffer while both are in flight. Read k+1 overwrites
 * what read k stored before block k has been written out.
 *
 * Why nobody notices: for files up to 64 KiB the second read of the batch
 * hits EOF and stores nothing, so the copy is correct and the program exits
 * 0. Larger files are silently corrupted (block k is replaced by block k+1;
 * the size is still right). uringcheck reports the overlap on every run,
 * including on small files, because both reads target the same bytes while
 * in flight: they are submitted together and neither completion is posted
 * before the second read is accepted.
 *
 * See copy_fixed.c for the corrected version (one-line difference).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BS	(64 * 1024)	/* bytes per read */
#define NBUF	2		/* reads kept in flight per batch */

static char bufs[NBUF][BS];

static void die(const char *what, int err)
{
	fprintf(stderr, "copy: %s: %s\n", what, strerror(err));
	exit(1);
}

/* wait for n completions; store res by user_data (block index in batch) */
static void wait_batch(struct io_uring *ring, int *res, int n)
{
	for (int i = 0; i < n; i++) {
		struct io_uring_cqe *cqe;
		int ret = io_uring_wait_cqe(ring, &cqe);

		if (ret < 0)
			die("io_uring_wait_cqe", -ret);
		if (cqe->res < 0)
			die(cqe->user_data < NBUF ? "read" : "write", -cqe->res);
		res[cqe->user_data % NBUF] = cqe->res;
		io_uring_cqe_seen(ring, cqe);
	}
}

int main(int argc, char **argv)
{
	struct io_uring ring;
	unsigned head = 0;	/* next free slot in the buffer ring */
	off_t off = 0;
	int in, out, ret, eof = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: %s SRC DST\n", argv[0]);
		return 2;
	}
	in = open(argv[1], O_RDONLY);
	if (in < 0)
		die(argv[1], errno);
	out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		die(argv[2], errno);
	ret = io_uring_queue_init(2 * NBUF, &ring, 0);
	if (ret < 0)
		die("io_uring_queue_init", -ret);

	while (!eof) {
		unsigned slot[NBUF];
		int got[NBUF], nw = 0;

		/* queue NBUF reads of consecutive blocks */
		for (int i = 0; i < NBUF; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			slot[i] = head % NBUF;
			io_uring_prep_read(sqe, in, bufs[slot[i]], BS, off + (off_t)i * BS);
			io_uring_sqe_set_data64(sqe, i);
		}
		head++;		/* BUG: must advance for every read, not per batch */
		ret = io_uring_submit(&ring);
		if (ret != NBUF)
			die("io_uring_submit", ret < 0 ? -ret : EIO);
		wait_batch(&ring, got, NBUF);

		/* write the blocks back in order, up to the first short one */
		for (int i = 0; i < NBUF; i++) {
			struct io_uring_sqe *sqe;

			if (got[i] > 0) {
				sqe = io_uring_get_sqe(&ring);
				io_uring_prep_write(sqe, out, bufs[slot[i]], got[i],
						    off + (off_t)i * BS);
				io_uring_sqe_set_data64(sqe, NBUF + i);
				nw++;
			}
			if (got[i] < BS) {
				eof = 1;
				break;
			}
		}
		if (nw) {
			int wrote[NBUF];

			ret = io_uring_submit(&ring);
			if (ret != nw)
				die("io_uring_submit", ret < 0 ? -ret : EIO);
			wait_batch(&ring, wrote, nw);
			for (int i = 0; i < nw; i++)
				if (wrote[i] != got[i])
					die("write", EIO);	/* short write to a regular file */
		}
		off += (off_t)NBUF * BS;
	}

	io_uring_queue_exit(&ring);
	if (close(out) < 0)
		die(argv[2], errno);
	close(in);
	return 0;
}
