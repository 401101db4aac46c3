/* uringcheck-test: expect=free-inflight options=--heap-alloc-probes match="handed out again before the request ended: calloc\(\) returned 0x[0-9a-f]+ \(4104 usable bytes\)" */
/*
 * inj_free-inflight_new_owner with calloc: the READ's freed 4 KiB chunk
 * is handed out again by calloc (glibc's calloc takes it from the same
 * bin as malloc), and the report names calloc as the call.
 */
#include "new_owner.h"

/* "Other code": a record that happens to be the next 4 KiB allocation. */
static __attribute__((noinline)) char *take_record(void)
{
	char *r = calloc(1, 4096);

	if (!r)
		fail("calloc");
	memset(r, 'R', 4096);
	return r;
}

int main(void)
{
	return new_owner_main(take_record, "calloc");
}
