/* uringcheck-test: expect=clean kind=runner */
/*
 * Runner helper: prints one line
 *     uid=<getuid()> gid=<getgid()> groups=<number of supplementary groups> home=<$HOME>
 * to stdout ("home=" is followed by nothing if HOME is unset) and exits 0.
 * Used to check which credentials/environment the runner gives the test.
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

int main(void)
{
	const char *home = getenv("HOME");
	int ngroups = SYS(getgroups(0, NULL));

	printf("uid=%u gid=%u groups=%d home=%s\n", (unsigned)getuid(), (unsigned)getgid(),
	       ngroups, home ? home : "");
	if (fflush(stdout))
		fail("stdout: %s", strerror(errno));
	return 0;
}
