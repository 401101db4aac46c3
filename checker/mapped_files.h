/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files a process maps, for the probes attached to a library it
 * loaded (heap_probes.c: its libc.so.6; liburing_files.c: its liburing),
 * read from /proc/PID/maps with the parser the stacks use
 * (symbolize/proc_maps_parse.h, fuzzed).
 *
 * A path in another process's maps is its mount namespace's: a
 * container's /usr/lib is not ours. It is opened here through the
 * process's root (/proc/PID/root/...), which names the file the process
 * mapped, whichever namespace it is in. Probing the path as we see it
 * attached to our own libc instead, and a container's frees went
 * unjudged without a word.
 */
#ifndef UC_MAPPED_FILES_H
#define UC_MAPPED_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Called for each file mapped, in the order of the maps, with its path
 * (as the process names it) and that path's last component; true stops
 * the walk. */
typedef bool (*mapped_file_fn)(const char *path, const char *base, void *arg);

/* Walks the files process @pid (0: this one) maps with @fn: 1 if @fn
 * stopped it, 0 if not, -1 if the process's maps are gone (it exited, or
 * is a zombie) or cannot be read. */
int mapped_files_each(pid_t pid, mapped_file_fn fn, void *arg);

/* @path, a file process @pid (0: this one) maps, as a path to open from
 * here (through its root), into @out: false if it does not fit. */
bool mapped_file_path(pid_t pid, const char *path, char *out, size_t len);

#endif
