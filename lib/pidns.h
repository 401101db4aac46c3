/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uringcheck's own PID namespace. In a child one (a container, WSL2,
 * `unshare --pid`), the BPF programs translate every pid they compare or
 * send into it (bpf/pidns.bpf.h), so that records, reports and -p use the
 * pids uringcheck, its target and the user see.
 */
#ifndef UC_PIDNS_H
#define UC_PIDNS_H

#include <stddef.h>
#include <stdint.h>

/* PROC_PID_INIT_INO: the initial PID namespace's inode, fixed since 3.8. */
#define UC_PID_INIT_INO	0xEFFFFFFCu

struct uc_pidns {
	uint64_t dev;		/* the namespace file's device, kernel encoding */
	uint64_t ino;		/* its inode; 0: the initial namespace */
};

/* Set by pidns_detect(), read by every mode's load. */
extern struct uc_pidns uc_pidns;

/*
 * Finds uringcheck's PID namespace and whether the run can be exact there:
 * /proc must be this namespace's (pids are read there), and in a child
 * namespace the kernel must have bpf_get_ns_current_pid_tgid (5.7+).
 * 0, or -1 with the reason in @why (the run must not go on: exit 70).
 */
int pidns_detect(char *why, size_t len);

/*
 * In a child namespace, once the modes are attached: a fork of this
 * process shows the BPF programs at which level their namespace is, which
 * they need for tasks of namespaces below it (bpf/pidns.bpf.h). A spawned
 * target's first fork teaches them too; -p and -a runs have none.
 */
void pidns_show_level(void);

/* A skeleton's read-only data, before load (bpf/pidns.bpf.h). */
#define PIDNS_RODATA(rodata)				\
	do {						\
		(rodata)->uc_pidns_dev = uc_pidns.dev;	\
		(rodata)->uc_pidns_ino = uc_pidns.ino;	\
	} while (0)

#endif
