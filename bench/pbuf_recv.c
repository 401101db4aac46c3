// SPDX-License-Identifier: GPL-2.0
/*
 * pbuf_recv: messages through a handful of ring-provided buffers, the
 * clean recycle loop: a multishot RECV on an AF_UNIX datagram socket
 * picks a buffer per message, the program copies the message out and
 * gives the buffer back after consuming its CQE. What judging provided
 * buffers costs a program that uses them (bench row (m)).
 *
 *   pbuf_recv N
 *
 * Prints: RESULT pbuf pid=P ops=N ops_per_sec=R
 */
#define _GNU_SOURCE
#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ENTRIES 16
#define BSZ 256
#define MSG 64
#define BATCH 8
#define BGID 1

static char pool[ENTRIES * BSZ] __attribute__((aligned(4096)));

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "pbuf_recv: %s: %s\n", what, strerror(err));
	exit(1);
}

static void arm(struct io_uring *ring, int fd)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_recv_multishot(sqe, fd, NULL, 0, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = BGID;
	sqe->user_data = 1;
	if (io_uring_submit(ring) != 1)
		die("submit", EIO);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000, got = 0;
	struct io_uring_buf_reg reg = { 0 };
	struct io_uring_buf_ring *br;
	struct io_uring ring;
	char msg[MSG], copy[BSZ];
	int s[2], ret;
	double t0, t1;

	memset(msg, 'm', sizeof(msg));
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, s))
		die("socketpair", errno);
	ret = io_uring_queue_init(64, &ring, 0);
	if (ret)
		die("io_uring_queue_init", -ret);
	br = mmap(NULL, ENTRIES * sizeof(struct io_uring_buf), PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (br == MAP_FAILED)
		die("mmap", errno);
	io_uring_buf_ring_init(br);
	reg.ring_addr = (unsigned long)br;
	reg.ring_entries = ENTRIES;
	reg.bgid = BGID;
	ret = io_uring_register_buf_ring(&ring, &reg, 0);
	if (ret)
		die("io_uring_register_buf_ring", -ret);
	for (int i = 0; i < ENTRIES; i++)
		io_uring_buf_ring_add(br, pool + i * BSZ, BSZ, i,
				      io_uring_buf_ring_mask(ENTRIES), i);
	io_uring_buf_ring_advance(br, ENTRIES);
	arm(&ring, s[0]);

	t0 = now();
	while (got < n) {
		for (int i = 0; i < BATCH; i++)
			if (send(s[1], msg, MSG, 0) != MSG)
				die("send", errno);
		for (int i = 0; i < BATCH;) {
			struct io_uring_cqe *cqe;
			unsigned bid;

			ret = io_uring_wait_cqe(&ring, &cqe);
			if (ret)
				die("io_uring_wait_cqe", -ret);
			if (cqe->res == -ENOBUFS || !(cqe->flags & IORING_CQE_F_BUFFER)) {
				if (!(cqe->flags & IORING_CQE_F_MORE))
					arm(&ring, s[0]);
				io_uring_cqe_seen(&ring, cqe);
				continue;
			}
			if (cqe->res != MSG)
				die("recv", cqe->res < 0 ? -cqe->res : EIO);
			bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
			memcpy(copy, pool + bid * BSZ, MSG);
			if (!(cqe->flags & IORING_CQE_F_MORE))
				arm(&ring, s[0]);
			io_uring_cqe_seen(&ring, cqe);
			io_uring_buf_ring_add(br, pool + bid * BSZ, BSZ, bid,
					      io_uring_buf_ring_mask(ENTRIES), 0);
			io_uring_buf_ring_advance(br, 1);
			got++;
			i++;
		}
	}
	t1 = now();
	printf("RESULT pbuf pid=%d ops=%ld ops_per_sec=%.0f\n", getpid(), got,
	       got / (t1 - t0));
	/* Cancel the RECV and reap it: a clean run leaves nothing in flight. */
	{
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct io_uring_cqe *cqe;
		int left = 2;

		io_uring_prep_cancel64(sqe, 1, 0);
		sqe->user_data = 2;
		io_uring_submit(&ring);
		while (left && !io_uring_wait_cqe(&ring, &cqe)) {
			if (cqe->user_data == 2 || !(cqe->flags & IORING_CQE_F_MORE))
				left--;
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	io_uring_queue_exit(&ring);
	return 0;
}
