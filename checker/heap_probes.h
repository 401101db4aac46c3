/* SPDX-License-Identifier: GPL-2.0 */
/*
 * free-inflight's uprobes on glibc's free and realloc, one set per
 * followed process (checker/heap_probes.c); judged in heap_rule.c.
 */
#ifndef UC_HEAP_PROBES_H
#define UC_HEAP_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct uc_session;

/* The program to attach, own or shared; -1 if uprobes are unavailable. */
int heap_probes_init(struct uc_session *s);
bool heap_probes_active(void);
/* Probes free/realloc of @libc_path for process @pid (before its exec is
 * fine: the events follow it). A failure is told on @out. */
int heap_probes_attach(pid_t pid, const char *libc_path, FILE *out);
/* Is that libc file probed already (for some process)? */
bool heap_probes_attached(const char *libc_path);
/* The libc.so.6 process @pid (0: this one) maps, into @path; in @other,
 * the name of an allocator library that replaces glibc's malloc, if one
 * is mapped. 1: found, 0: none, -1: its maps are gone (it exited). */
int heap_find_libc(pid_t pid, char *path, size_t len, char *other, size_t olen);
void heap_probes_stop(void);

#endif
