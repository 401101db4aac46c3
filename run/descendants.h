/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UC_DESCENDANTS_H
#define UC_DESCENDANTS_H

#include <sys/types.h>

/*
 * The processes below @pid now (its children, theirs, ...), from
 * /proc/PID/task/TID/children: every thread's, since a child's parent
 * is the thread that forked it. Into *@out (malloc'd, the caller frees;
 * NULL when none), breadth first; returns how many, at most @max.
 * A process that exits meanwhile is skipped: it has nothing to follow.
 */
int descendants_list(pid_t pid, pid_t **out, int max);

#endif
