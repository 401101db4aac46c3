/* uringcheck-test: expect=clean */
/*
 * Two rings with separate registrations. Ring A has a READ_FIXED on its
 * index 0 (bufA) from an empty pipe in flight while ring B, whose index 0 is
 * bufB, unregisters its buffers. Buffer indexes are per ring: ring B's index
 * 0 has no users, so no hazard. Ring A's READ then completes and is reaped
 * before ring A unregisters.
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

static char bufA[4096] __attribute__((aligned(4096)));
static char bufB[4096] __attribute__((aligned(4096)));

int main(void)
{
	const int want[1] = { 100 };
	struct iovec regA = { .iov_base = bufA, .iov_len = sizeof(bufA) };
	struct iovec regB = { .iov_base = bufB, .iov_len = sizeof(bufB) };
	struct io_uring_sqe *sqe;
	struct io_uring ra, rb;
	char expect[100];
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ra, 0));
	URING(io_uring_queue_init(8, &rb, 0));
	URING(io_uring_register_buffers(&ra, &regA, 1));
	URING(io_uring_register_buffers(&rb, &regB, 1));

	sqe = get_sqe(&ra);
	io_uring_prep_read_fixed(sqe, a[0], bufA, sizeof(bufA), 0, 0);
	sqe->user_data = 0;
	submit_exact(&ra, 1);
	require_no_cqe(&ra, "ring A READ_FIXED submitted");

	URING(io_uring_unregister_buffers(&rb));
	require_no_cqe(&ra, "ring B buffers unregistered");

	feed(a[1], 100, 1);
	reap(&ra, want, 1);
	pattern(expect, sizeof(expect), 1);
	if (memcmp(bufA, expect, sizeof(expect)))
		fail("READ_FIXED did not land in bufA");

	URING(io_uring_unregister_buffers(&ra));
	io_uring_queue_exit(&ra);
	io_uring_queue_exit(&rb);
	close(a[0]); close(a[1]);
	return 0;
}
