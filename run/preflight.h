/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UC_PREFLIGHT_H
#define UC_PREFLIGHT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * What must hold before any BPF is loaded, each checked where a container
 * most often breaks it: the user namespace, the capabilities, /sys, and
 * (for a target uringcheck starts, which inherits its seccomp filter)
 * io_uring itself. 0, or -1 with what is missing and how to grant it in
 * @why, a message of several lines (exit 70).
 */
int preflight(bool spawning, char *why, size_t len);

#endif
