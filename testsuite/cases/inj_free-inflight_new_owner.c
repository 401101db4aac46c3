/* uringcheck-test: expect=free-inflight options=--heap-alloc-probes match="#[0-9]+ 0x[0-9a-f]+ in take_record testsuite/cases/inj_free-inflight_new_owner.c" */
/*
 * inj_free-inflight_malloc with the allocation probes: the READ's 4 KiB
 * chunk is freed (in drop_buffer) while the READ is in flight, and
 * take_record, other code, mallocs the same size and gets that very
 * chunk before the READ completes into it. The report names the new
 * owner: "handed out again before the request ended: malloc() returned
 * ..." and its stack, take_record's (asserted: the only stack that can
 * hold take_record is the allocation's).
 */
#include "new_owner.h"

/* "Other code": a record that happens to be the next 4 KiB allocation. */
static __attribute__((noinline)) char *take_record(void)
{
	char *r = malloc(4096);

	if (!r)
		fail("malloc");
	memset(r, 'R', 4096);
	return r;
}

int main(void)
{
	return new_owner_main(take_record, "malloc");
}
