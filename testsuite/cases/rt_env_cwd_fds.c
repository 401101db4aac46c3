/* uringcheck-test: expect=clean kind=runner */
/*
 * Runner helper: prints exactly three lines to stdout and exits 0:
 *     cwd=<current working directory>
 *     UC_TEST_VAR=<value>          ("UC_TEST_VAR unset" if it is not set)
 *     fds=<open fds, ascending, comma separated, e.g. 0,1,2>
 * The fd list comes from /proc/self/fd and excludes the directory fd used
 * to read it. Used to check the runner preserves cwd and environment and
 * does not leak fds into the test. Uses no io_uring.
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
#include <dirent.h>
#include <limits.h>

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int main(void)
{
	const char *v = getenv("UC_TEST_VAR");
	char cwd[PATH_MAX];
	int fds[4096], n = 0;
	struct dirent *de;
	DIR *d;

	if (!getcwd(cwd, sizeof(cwd)))
		fail("getcwd: %s", strerror(errno));
	d = opendir("/proc/self/fd");
	if (!d)
		fail("opendir /proc/self/fd: %s", strerror(errno));
	while ((de = readdir(d))) {
		char *end;
		long fd;

		if (de->d_name[0] == '.')
			continue;
		fd = strtol(de->d_name, &end, 10);
		if (*end || fd == dirfd(d))
			continue;
		if (n == (int)(sizeof(fds) / sizeof(fds[0])))
			fail("too many open fds");
		fds[n++] = (int)fd;
	}
	closedir(d);
	qsort(fds, n, sizeof(fds[0]), cmp_int);

	printf("cwd=%s\n", cwd);
	if (v)
		printf("UC_TEST_VAR=%s\n", v);
	else
		printf("UC_TEST_VAR unset\n");
	printf("fds=");
	for (int i = 0; i < n; i++)
		printf("%s%d", i ? "," : "", fds[i]);
	printf("\n");
	if (fflush(stdout))
		fail("stdout: %s", strerror(errno));
	return 0;
}
