/* uringcheck-test: expect=clean options=--reap-lag-ms=50 */
/*
 * A READ from an empty pipe stays in flight ~300 ms: a helper thread sleeps
 * 300 ms and then writes the pipe, while the main thread is already blocked
 * in io_uring_wait_cqe_timeout. The CQE is posted when the data arrives and
 * consumed immediately: a request that is long IN FLIGHT is not reap lag
 * (the lag is measured from CQE posting to consumption). No reap-lag.
 *
 * Kernel entry after the CQE is posted: yes - the main thread is inside
 * io_uring_enter(GETEVENTS) when the CQE is posted and returns from it with
 * the CQE ready, then advances the CQ head in userspace.
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

static char buf[4096] __attribute__((aligned(4096)));

static void *writer(void *arg)
{
	int fd = *(int *)arg;

	usleep(300 * 1000);
	feed(fd, 100, 1);
	return NULL;
}

int main(void)
{
	const int want[1] = { 100 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	char expect[100];
	pthread_t t;
	int a[2], err;

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, sizeof(buf), 0);
	sqe->user_data = 0;
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "READ submitted");

	err = pthread_create(&t, NULL, writer, &a[1]);
	if (err)
		fail("pthread_create: %s", strerror(err));
	reap(&ring, want, 1);			/* blocks ~300 ms, then reaps at once */
	err = pthread_join(t, NULL);
	if (err)
		fail("pthread_join: %s", strerror(err));
	pattern(expect, sizeof(expect), 1);
	if (memcmp(buf, expect, sizeof(expect)))
		fail("READ did not land in buf");

	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
