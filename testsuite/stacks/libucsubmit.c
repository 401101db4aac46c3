/* A shared library of the test's own that submits on the caller's ring:
 * the report must name this file and function. */
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>

int __attribute__((noinline)) lib_submit(struct io_uring *ring)
{
	int ret = io_uring_submit(ring); /* SITE:lib_submit */

	if (ret < 0) {
		fprintf(stderr, "io_uring_submit: %d\n", ret);
		exit(1);
	}
	return ret;
}
