/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UC_FOLLOW_H
#define UC_FOLLOW_H

#include <stdint.h>
#include <sys/types.h>

struct bpf_map;

/* Follows process @pid in a profile's or trace's programs
 * (bpf/follow.bpf.h): into @targets (their follow_targets map), then a
 * new generation in *@gen (their follow_gen, in the object's .bss).
 * 0, or -1 with the error said. */
int uc_follow_pid(struct bpf_map *targets, uint32_t *gen, pid_t pid);

#endif
