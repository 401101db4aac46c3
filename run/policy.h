/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a user who may run `sudo uringcheck` may do with it (SECURITY in
 * README.md and uringcheck(1)). Under sudo, root loads and runs the BPF
 * programs and nothing else: the target runs as the invoking user, the
 * user's files are opened as the user (lib/user_files.h), and what
 * would reach beyond the user's own processes needs the administrator's
 * leave, written in a configuration file only root can change:
 *
 *     /etc/uringcheck.conf   (root-owned, not group- or world-writable)
 *         allow-as-root      --as-root under sudo: the target runs as root
 *         allow-attach-any   -p PID of another user's process (-f: all
 *                            its descendants), and -a
 *
 * Without sudo (real root, or a user given CAP_BPF and CAP_PERFMON)
 * nothing here applies: the caller already has those rights.
 */
#ifndef UC_POLICY_H
#define UC_POLICY_H

#ifndef UC_CONFIG_FILE
#define UC_CONFIG_FILE "/etc/uringcheck.conf"
#endif

#include <stdbool.h>

struct uc_options;
struct uc_run_as;

/* 0 if @o may run for @ra's user; else the exit status, after a
 * message naming what is refused and why. */
int policy_check(const struct uc_options *o, const struct uc_run_as *ra);

/* May @ra's user watch process @pid, met after the checks above (-f's
 * descendants of the -p process)? As -p's own rule: always without
 * sudo; under sudo, its own processes, or any with allow-attach-any. */
bool policy_may_watch(long pid, const struct uc_run_as *ra);

#endif
