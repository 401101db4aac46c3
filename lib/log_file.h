/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UC_LOG_FILE_H
#define UC_LOG_FILE_H

#include <stdio.h>
#include <sys/types.h>

/* Opens PATH for writing, "%p" expanded to @pid (as the sanitizers'
 * log_path does); NULL with a message on stderr. */
FILE *open_log(const char *pattern, pid_t pid);

#endif
