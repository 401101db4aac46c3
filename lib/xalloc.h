/* SPDX-License-Identifier: GPL-2.0 */
/* Allocation that cannot fail quietly: out of memory ends the run with a
 * tool error rather than a wrong verdict. */
#ifndef UC_XALLOC_H
#define UC_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#endif
