/* uringcheck-test: expect=clean kind=runner args=1 */
/*
 * Runner helper for signal-forwarding tests: sleeps argv[1] seconds
 * (fractions allowed, default 1) and exits 0. It installs no signal
 * handlers, so a forwarded SIGTERM/SIGINT kills it with that signal.
 * Uses no io_uring.
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
#include <time.h>

int main(int argc, char **argv)
{
	double secs = argc > 1 ? strtod(argv[1], NULL) : 1.0;
	struct timespec ts, rem;

	if (secs < 0)
		fail("bad duration %s", argv[1]);
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &rem) < 0) {
		if (errno != EINTR)
			fail("nanosleep: %s", strerror(errno));
		ts = rem;	/* e.g. SIGSTOP/SIGCONT */
	}
	return 0;
}
