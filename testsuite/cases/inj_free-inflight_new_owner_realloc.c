/* uringcheck-test: expect=free-inflight options=--heap-alloc-probes match="handed out again before the request ended: realloc\(\) returned 0x[0-9a-f]+ \(4104 usable bytes\)" */
/*
 * inj_free-inflight_new_owner with realloc: a small record grown to 4 KiB
 * moves into the READ's freed chunk, and the report names realloc as the
 * call that handed it out again. (The record's old 32-byte chunk is a
 * release too, but no request holds it.)
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

static char *small_record;

static __attribute__((noinline)) void drop_buffer(char *b)
{
	free(b);
}

/* "Other code": a record that happens to be the next 4 KiB allocation. */
static __attribute__((noinline)) char *take_record(void)
{
	char *r = realloc(small_record, 4096);

	if (!r)
		fail("realloc");
	memset(r, 'R', 4096);
	return r;
}

int main(void)
{
	struct io_uring ring;
	char *buf, *rec, *guard[2];
	uintptr_t was;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	/* guards: the record cannot grow in place, the chunk cannot merge
	 * with the top of the heap */
	small_record = malloc(32);
	guard[0] = malloc(32);
	buf = malloc(4096);
	guard[1] = malloc(32);
	if (!buf || !small_record || !guard[0] || !guard[1])
		fail("malloc");

	read_in_flight(&ring, a[0], buf, 7);

	was = (uintptr_t)buf;
	drop_buffer(buf);			/* while the READ is in flight */
	rec = take_record();
	if ((uintptr_t)rec != was)
		fail("realloc did not hand the freed chunk out again (%p, 0x%lx)",
		     (void *)rec, (unsigned long)was);

	read_lands(&ring, a[1], 7, rec);

	free(rec);
	free(guard[0]);
	free(guard[1]);
	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
