/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Opening a file a followed process names: a library in its maps, a
 * debug file next to its binary. The process chooses what sits at that
 * path, and may put a FIFO there (an open for reading would wait for a
 * writer forever) or a device (opening a terminal could make it ours).
 * So: opened without blocking and without taking a terminal, and kept
 * only if it is a regular file. Header-only: symbolize/ builds alone.
 */
#ifndef UC_REGULAR_FILE_H
#define UC_REGULAR_FILE_H

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* A read-only descriptor of the regular file at @path, or -1 (errno;
 * EINVAL: something else is there). */
static inline int open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

#endif
