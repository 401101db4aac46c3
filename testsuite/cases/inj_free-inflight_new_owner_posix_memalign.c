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
#include "new_owner.h"

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
	return new_owner_main(take_record, "posix_memalign");
}
