/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A kernel function's address from /proc/kallsyms, for BPF programs that
 * must recognise a function pointer they are handed (a work item's
 * callback): BTF has the types, not the addresses.
 */
#ifndef UC_KALLSYMS_H
#define UC_KALLSYMS_H

#include <stdint.h>

/* The address of text symbol @name, 0 when it is absent or hidden
 * (kptr_restrict shows zeros to the unprivileged). */
uint64_t kallsyms_addr(const char *name);

#endif
