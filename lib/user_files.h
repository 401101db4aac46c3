/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files a user names (--log-file, --json, --sarif, --trace, --events,
 * --suppressions, --srcroot), opened as that user could open them.
 *
 * Under sudo (real uid 0, SUDO_UID naming another user) every such open
 * is made with the invoking user's identity: the effective uid and gid
 * and the supplementary groups are switched to the user's for the open
 * and back to root's after it (uf_set_user). Root's rights are never
 * used on a path the user gave.
 *
 * Every open refuses a final symlink that another user owns in a sticky,
 * world-writable directory (/tmp), unless the directory's owner owns it
 * too: the kernel's fs.protected_symlinks rule, applied whatever the
 * sysctl says. Nothing blocks: FIFOs are opened non-blocking.
 *
 * Outputs (uf_output_open) are opened before the target runs, %p
 * expanded to the PID (a file named with %p is created, never reused:
 * O_EXCL). A regular file is truncated only once it is known to be one;
 * a character device (/dev/null, a terminal) or a FIFO with a reader is
 * written as it is; a FIFO without a reader, a directory, a block device
 * are errors. /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N
 * are the descriptors uringcheck was given, duplicated, not reopened. A write error (ENOSPC, EIO) is kept with its errno, and
 * uf_outputs_finish names the file and removes it: no output that could
 * not be written whole is left behind (removed only if it is a regular
 * file the invoking user owns and still has the name it was opened by).
 */
#ifndef UC_USER_FILES_H
#define UC_USER_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Suppression files and the like: larger is an error, not a long read. */
#define UF_READ_MAX (16u << 20)

struct uc_user {
	bool sudo;			/* open as uid/gid/groups, not as root */
	uid_t uid;
	gid_t gid;
	const gid_t *groups;
	int ngroups;
};

/* The identity files are opened with (copied; the groups are not). */
void uf_set_user(const struct uc_user *u);

/* Reads the regular file @path whole (at most @max bytes) into a
 * NUL-terminated buffer; its length (NUL bytes included) in @len. NULL
 * with a reason in @err ("not a regular file", "larger than 16 MiB", the
 * errno's text); never the file's content. */
char *uf_read(const char *path, size_t max, size_t *len, char *err, size_t errlen);

/* The real path of the directory @path, looked up as the user. */
int uf_realpath_dir(const char *path, char *out, size_t outlen, char *err,
		    size_t errlen);

/* Opens the output @pattern (%p: @pid) for option @option ("log-file",
 * "json", ...). NULL with "uringcheck: --OPTION=PATH: reason" printed. */
FILE *uf_output_open(const char *option, const char *pattern, pid_t pid);
/* The stream opened for --@option=@pattern, for the code that writes
 * it (and fcloses it); NULL if it was never opened. */
FILE *uf_output_stream(const char *option, const char *pattern);
/* After the run: every output still open is closed; one whose write or
 * close failed is named on stderr ("cannot write ...: No space left on
 * device") and removed. With @complete false (the run failed before its
 * outputs were written), every file created is removed. Returns -1 if
 * an output failed. */
int uf_outputs_finish(bool complete);
/* From a signal handler: removes the outputs (async-signal-safe). */
void uf_outputs_abandon(void);

#endif
