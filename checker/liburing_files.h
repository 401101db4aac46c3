/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a process's liburing is, for the probes on its entry points
 * (liburing_probes.c: reap timing; sqpoll_probes.c: SQPOLL stacks): the
 * shared object a process maps, the system's, or the executable itself
 * when liburing.a is linked in.
 */
#ifndef UC_LIBURING_FILES_H
#define UC_LIBURING_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uprobe_events.h"

/* The liburing shared object process @pid maps (liburing.so.N or
 * liburing-ffi.so.N), into @path as a path through the process's root
 * (/proc/PID/root/...: the file its own mount namespace names, a
 * container's included): 1 found, 0 none, -1 gone, -ENAMETOOLONG mapped
 * but its path through the root is longer than @len. */
int liburing_mapped(uint32_t pid, char *path, size_t len);

/* The system's liburing.so.2, its real path into @path: false if none. */
bool liburing_system(char *path, size_t len);

/* Whether the executable @path needs liburing.so (DT_NEEDED). */
bool liburing_needed(const char *path);

/* Attaches @prog_fd for process @pid at those of the @nnames functions
 * @names that @path defines (uprobe_attach: @fds, *@nfds of @cap): how
 * many (0 too when @path cannot be read, or defines none of them: an
 * executable without liburing.a linked in), or -errno of the first
 * failure. */
int liburing_attach_file(const struct uprobe_way *w, int prog_fd, const char *path,
			 const char *const *names, int nnames, pid_t pid,
			 int *fds, int *nfds, int cap);

#endif
