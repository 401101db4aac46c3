/* uringcheck-test: expect=free-inflight options=--heap-alloc-probes match="#0 0x[0-9a-f]+ in take_record testsuite/cases/inj_free-inflight_new_owner_posix_memalign.c" */
/*
 * inj_free-inflight_new_owner with posix_memalign: its result is written
 * through its first argument (read at its return), and with a 16-byte
 * alignment glibc's posix_memalign calls malloc inside. That inner
 * malloc's return is left to posix_memalign's: a stack taken there
 * cannot be unwound past posix_memalign, whose return address the
 * kernel's uretprobe replaced. Asserted: the allocation's stack begins in
 * take_record (frame #0: the caller of posix_memalign).
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

static __attribute__((noinline)) void drop_buffer(char *b)
{
	free(b);
}

/* "Other code": a record that happens to be the next 4 KiB allocation. */
static __attribute__((noinline)) char *take_record(void)
{
	void *r;

	if (posix_memalign(&r, 16, 4096))
		fail("posix_memalign");
	memset(r, 'R', 4096);
	return r;
}

int main(void)
{
	struct io_uring ring;
	char *buf, *rec;
	uintptr_t was;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	buf = malloc(4096);
	if (!buf)
		fail("malloc");

	read_in_flight(&ring, a[0], buf, 7);

	was = (uintptr_t)buf;
	drop_buffer(buf);			/* while the READ is in flight */
	rec = take_record();
	if ((uintptr_t)rec != was)
		fail("posix_memalign did not hand the freed chunk out again (%p, 0x%lx)",
		     (void *)rec, (unsigned long)was);

	read_lands(&ring, a[1], 7, rec);

	free(rec);
	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
