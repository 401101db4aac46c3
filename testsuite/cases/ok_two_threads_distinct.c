/* uringcheck-test: expect=clean */
/*
 * Two threads, each with its own ring and empty pipe, READ into two
 * separate buffers. A barrier after both submissions makes both READs in
 * flight together, but they never share memory: no hazard.
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
#include <pthread.h>

static char buf0[4096] __attribute__((aligned(4096)));
static char buf1[4096] __attribute__((aligned(4096)));
static pthread_barrier_t barrier;

struct worker {
	int id;
	char *dst;
	int p[2];
};

static void *run(void *arg)
{
	struct worker *w = arg;
	const int want[1] = { 100 + w->id };
	struct io_uring_sqe *sqe;
	struct io_uring ring;

	URING(io_uring_queue_init(8, &ring, 0));
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, w->p[0], w->dst, 4096, 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);

	pthread_barrier_wait(&barrier);	/* both READs are in flight now */
	require_no_cqe(&ring, "both threads submitted");

	feed(w->p[1], 100 + w->id, w->id);
	reap(&ring, want, 1);
	io_uring_queue_exit(&ring);
	return NULL;
}

int main(void)
{
	struct worker w[2] = { { .id = 0, .dst = buf0 }, { .id = 1, .dst = buf1 } };
	pthread_t t[2];
	int ret;

	pthread_barrier_init(&barrier, NULL, 2);
	for (int i = 0; i < 2; i++) {
		SYS(pipe(w[i].p));
		ret = pthread_create(&t[i], NULL, run, &w[i]);
		if (ret)
			fail("pthread_create: %s", strerror(ret));
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		close(w[i].p[0]);
		close(w[i].p[1]);
	}
	pthread_barrier_destroy(&barrier);
	return 0;
}
