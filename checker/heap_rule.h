/* SPDX-License-Identifier: GPL-2.0 */
/*
 * free-inflight (checker/heap_rule.c): heap releases judged against the
 * requests in flight. Three hooks: the target followed (probe it before
 * it runs), a process's first ring (look at its libc), and the kernel
 * side's UC_EV_HEAP_RELEASE records.
 */
#ifndef UC_HEAP_RULE_H
#define UC_HEAP_RULE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct uc_tracker;
struct uc_heap_release;

void heap_rule_follow(pid_t pid, FILE *out);
void heap_rule_process(struct uc_tracker *t, uint32_t tgid);
void heap_on_release(struct uc_tracker *t, const struct uc_heap_release *h);
void heap_rule_free(void);

#endif
