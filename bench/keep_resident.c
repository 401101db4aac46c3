// SPDX-License-Identifier: GPL-2.0
/*
 * keep_resident: keep a file's page cache resident while a benchmark runs.
 *
 *   keep_resident FILE            map + mlock FILE, report, wait for SIGTERM
 *   keep_resident --check FILE    report residency (mincore) and exit
 *
 * This VM runs a DAMON "pageout" scheme that evicts page-cache pages that
 * look cold within seconds; a locked mapping makes the file's pages
 * unevictable, so a "page-cached" read benchmark stays one. The pages stay
 * ordinary page cache of the file on its real file system (not tmpfs,
 * where io_uring punts reads to io-wq).
 *
 * Prints "resident FILE PAGES_IN/PAGES_TOTAL locked|unlocked" on stdout;
 * the holder prints it once the whole file is locked in, then waits.
 * Exit status 0 only if every page is resident.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static size_t resident(void *map, size_t len, size_t *total)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t n = (len + pg - 1) / pg, in = 0;
	unsigned char *vec = malloc(n ? n : 1);

	if (!vec || mincore(map, len, vec)) {
		perror("keep_resident: mincore");
		exit(1);
	}
	for (size_t i = 0; i < n; i++)
		in += vec[i] & 1;
	free(vec);
	*total = n;
	return in;
}

int main(int argc, char **argv)
{
	int check = argc == 3 && !strcmp(argv[1], "--check");
	const char *file = argv[argc - 1];
	size_t in, total;
	struct stat st;
	sigset_t set;
	void *map;
	int fd, sig;

	if (argc != 2 && !check) {
		fprintf(stderr, "usage: keep_resident [--check] FILE\n");
		return 2;
	}
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "keep_resident: %s: %s\n", file, strerror(errno));
		return 1;
	}
	if (st.st_size == 0) {
		fprintf(stderr, "keep_resident: %s is empty\n", file);
		return 1;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "keep_resident: mmap: %s\n", strerror(errno));
		return 1;
	}
	if (check) {
		in = resident(map, st.st_size, &total);
		printf("resident %s %zu/%zu unlocked\n", file, in, total);
		return in == total ? 0 : 1;
	}

	/* Block SIGTERM/SIGINT first so the wait below cannot miss one. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);

	/* mlock faults every page in (reading it from disk if it was
	 * evicted) and pins it until munlock or exit. */
	if (mlock(map, st.st_size)) {
		fprintf(stderr, "keep_resident: mlock: %s\n", strerror(errno));
		return 1;
	}
	in = resident(map, st.st_size, &total);
	printf("resident %s %zu/%zu locked\n", file, in, total);
	fflush(stdout);
	if (in != total)
		return 1;
	sigwait(&set, &sig);
	munlock(map, st.st_size);
	return 0;
}
