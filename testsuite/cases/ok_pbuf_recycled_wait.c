/* uringcheck-test: expect=clean */
/*
 * A receive that picks a provided buffer and finds no data gives the
 * buffer back to the kernel unused (io_kbuf_recycle) and waits, so the
 * next receive picks that very buffer: here 32 receives pick buffer 0 in
 * turn at submission. A held scan (another thread's write()s, judged
 * calls, here in a tight loop) can see one request holding it just before
 * it gives it back and the next one just after: one buffer, held by one
 * request at a time. Not a finding (liburing's poll-race-mshot showed it
 * as an overlap one run in ten). A race by nature: many rounds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "uc_test.h"

/* ---- end of common helpers ---- */

#define BGID 7
#define NREQS 32
#define MSG 64
#define ROUNDS 200

static atomic_int stop;

/* Judged calls, as many as can be: each one scans the held buffers. */
static void *scan_often(void *arg)
{
	int fd = SYS(open("/dev/null", O_WRONLY));
	char b[MSG] = { 0 };

	(void)arg;
	while (!atomic_load(&stop))
		write_all(fd, b, sizeof(b));
	close(fd);
	return NULL;
}

int main(void)
{
	static char pool[NREQS * MSG] __attribute__((aligned(4096)));
	struct io_uring_buf_ring *br;
	struct io_uring ring;
	pthread_t thread;
	char msg[MSG];
	int sv[2];

	memset(msg, 'x', sizeof(msg));
	URING(io_uring_queue_init(NREQS * 2, &ring, 0));
	SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	br = buf_ring_setup(&ring, NREQS, BGID);
	pthread_create(&thread, NULL, scan_often, NULL);
	for (int r = 0; r < ROUNDS; r++) {
		buf_ring_fill(br, NREQS, pool, NREQS, MSG);
		for (int i = 0; i < NREQS; i++) {
			struct io_uring_sqe *sqe = get_sqe(&ring);

			io_uring_prep_recv(sqe, sv[0], NULL, 0, 0);
			sqe->flags |= IOSQE_BUFFER_SELECT;
			sqe->buf_group = BGID;
		}
		submit_exact(&ring, NREQS);	/* each picks buffer 0, gives it back */
		for (int i = 0; i < NREQS; i++)
			write_all(sv[1], msg, sizeof(msg));
		for (int i = 0; i < NREQS; i++) {
			struct cqe_copy c = wait_one(&ring);

			if (c.res <= 0 || !(c.flags & IORING_CQE_F_BUFFER))
				fail("round %d: res %d, flags 0x%x", r, c.res, c.flags);
		}
	}
	atomic_store(&stop, 1);
	pthread_join(thread, NULL);
	io_uring_queue_exit(&ring);
	return 0;
}
