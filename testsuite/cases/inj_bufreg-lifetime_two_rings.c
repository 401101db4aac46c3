/* uringcheck-test: expect=bufreg-lifetime */
/*
 * Two rings, each with its own registration. Ring A registers bufA and stays
 * idle (one NOP, reaped; nothing in flight). Ring B registers bufB; a
 * READ_FIXED on B's index 0 from an empty pipe is in flight when ring B
 * unregisters its own buffers: bufreg-lifetime (on ring B; ring A's index 0
 * is a different registration and is never touched while in use).
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
	const int want_nop[1] = { 0 }, want[1] = { 100 };
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
	io_uring_prep_nop(sqe);
	sqe->user_data = 0;
	submit_exact(&ra, 1);
	reap(&ra, want_nop, 1);

	sqe = get_sqe(&rb);
	io_uring_prep_read_fixed(sqe, a[0], bufB, sizeof(bufB), 0, 0);
	sqe->user_data = 0;
	submit_exact(&rb, 1);
	require_no_cqe(&rb, "ring B READ_FIXED submitted");

	URING(io_uring_unregister_buffers(&rb));	/* B's index 0 in use */
	require_no_cqe(&rb, "ring B buffers unregistered");

	feed(a[1], 100, 1);
	reap(&rb, want, 1);
	pattern(expect, sizeof(expect), 1);
	if (memcmp(bufB, expect, sizeof(expect)))
		fail("READ_FIXED did not land in the old bufB");

	URING(io_uring_unregister_buffers(&ra));
	io_uring_queue_exit(&ra);
	io_uring_queue_exit(&rb);
	close(a[0]); close(a[1]);
	return 0;
}
