/* uringcheck-test: expect=free-inflight match="free\(\) of heap chunk 0x[0-9a-f]+ \(4104 usable bytes\)" absent="handed out again|re-allocated at" */
/*
 * A READ from an empty pipe into a 4 KiB malloc() chunk is in flight
 * (poll armed: the copy happens when data arrives) when the chunk is
 * free()d. glibc keeps the chunk in its heap (tcache): no munmap, no brk.
 * Other code then mallocs the same size and gets that very chunk; the
 * pipe is written, the READ completes, and the new owner's object is
 * overwritten. free-inflight, with the chunk's extent from its header:
 * 4104 usable bytes, what malloc_usable_size() says (checked here).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "uc_test.h"

/* ---- end of common helpers ---- */

/* "Other code": a record that happens to be the next 4 KiB allocation. */
static __attribute__((noinline)) char *new_record(void)
{
	char *r = malloc(4096);

	if (!r)
		fail("malloc");
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
	if (malloc_usable_size(buf) != 4104)
		fail("malloc_usable_size: %zu, the test expects 4104",
		     malloc_usable_size(buf));

	read_in_flight(&ring, a[0], buf, 7);

	was = (uintptr_t)buf;
	free(buf);				/* while the READ is in flight */
	rec = new_record();
	if ((uintptr_t)rec != was)
		fail("malloc did not hand the freed chunk out again (%p, 0x%lx)",
		     (void *)rec, (unsigned long)was);

	read_lands(&ring, a[1], 7, rec);

	free(rec);
	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
