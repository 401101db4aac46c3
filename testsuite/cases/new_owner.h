/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The free-inflight new-owner cases' program: a READ into a 4 KiB heap
 * chunk is in flight when the chunk is freed (in drop_buffer); the
 * case's own take_record, "other code", then gets that very chunk from
 * the allocation call the case is about, before the READ completes into
 * it. Each case names its take_record, so the allocation's stack is
 * its own.
 */
#ifndef NEW_OWNER_H
#define NEW_OWNER_H

#include "uc_test.h"

static __attribute__((noinline)) void drop_buffer(char *b)
{
	free(b);
}

/* @take: the case's take_record; @call: its allocation call, for errors. */
static inline int new_owner_main(char *(*take)(void), const char *call)
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
	rec = take();
	if ((uintptr_t)rec != was)
		fail("%s did not hand the freed chunk out again (%p, 0x%lx)",
		     call, (void *)rec, (unsigned long)was);

	read_lands(&ring, a[1], 7, rec);

	free(rec);
	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}

#endif /* NEW_OWNER_H */
