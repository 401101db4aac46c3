/* SPDX-License-Identifier: GPL-2.0 */
/*
 * liburing uprobe mode (--liburing-uprobes): probes on liburing's
 * non-inlined entry points, in the shared liburing.so.2 and in a target
 * that links liburing.a statically, sharpen reap-lag timing.
 */
#ifndef UC_LIBURING_PROBES_H
#define UC_LIBURING_PROBES_H

#include <stdio.h>

struct uc_session;

/* Attaches what it can and prints one line saying which mode is active
 * (or why uprobes cannot help this target). Returns -1 only on errors
 * other than "nothing to probe". */
int liburing_probes_attach(struct uc_session *s, const char *exe, FILE *out);

#endif
