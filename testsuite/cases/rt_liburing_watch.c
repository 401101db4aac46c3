/*
 * A liburing program that no uringcheck follows, for the runner (run.sh,
 * "reap-lag: uprobes stay in the followed processes"): for MS ms it
 * watches the first byte of its own io_uring_submit and
 * io_uring_submit_and_wait, where a uprobe plants int3 (0xcc). Prints
 * "clean" and exits 0 if neither was ever probed, else prints which and
 * exits 1. "watching" is printed once it watches.
 */
#define _GNU_SOURCE
#include <liburing.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	const volatile unsigned char *submit =
		(const volatile unsigned char *)(uintptr_t)io_uring_submit;
	const volatile unsigned char *submit_wait =
		(const volatile unsigned char *)(uintptr_t)io_uring_submit_and_wait;
	double end = now_ms() + (argc > 1 ? atof(argv[1]) : 1000);
	int hit_submit = 0, hit_wait = 0;

	printf("watching\n");
	fflush(stdout);
	while (now_ms() < end) {
		hit_submit |= *submit == 0xcc;
		hit_wait |= *submit_wait == 0xcc;
		usleep(200);
	}
	if (!hit_submit && !hit_wait) {
		printf("clean\n");
		return 0;
	}
	printf("probed:%s%s\n", hit_submit ? " io_uring_submit" : "",
	       hit_wait ? " io_uring_submit_and_wait" : "");
	return 1;
}
