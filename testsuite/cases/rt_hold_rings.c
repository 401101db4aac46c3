/* uringcheck-test: expect=clean kind=runner args=16,1 */
/*
 * Runner helper for the ring-list tests: makes argv[1] rings (a NOP
 * through each, so the checker tracks them), creates the file argv[3]
 * if given (the sign that they are all there), and holds them argv[2]
 * seconds (fractions allowed) before closing them and exiting 0.
 */
#include "uc_test.h"

#include <fcntl.h>
#include <time.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 16;
	double secs = argc > 2 ? strtod(argv[2], NULL) : 1.0;
	struct io_uring *ring;
	struct timespec ts;

	if (n <= 0 || secs < 0)
		fail("usage: rt_hold_rings RINGS SECONDS [READY_FILE]");
	ring = calloc(n, sizeof(*ring));
	if (!ring)
		fail("calloc: out of memory");
	for (int i = 0; i < n; i++) {
		URING(io_uring_queue_init(2, &ring[i], 0));
		io_uring_prep_nop(get_sqe(&ring[i]));
		submit_exact(&ring[i], 1);
		wait_one(&ring[i]);
	}
	if (argc > 3)
		SYS(close(SYS(open(argv[3], O_WRONLY | O_CREAT | O_EXCL, 0600))));
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	for (int i = 0; i < n; i++)
		io_uring_queue_exit(&ring[i]);
	free(ring);
	return 0;
}
