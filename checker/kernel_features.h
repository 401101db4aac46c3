/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel offers, read from its BTF before anything is
 * loaded, so a missing hook is a clear one-line error rather than a
 * verifier log.
 */
#ifndef UC_KERNEL_FEATURES_H
#define UC_KERNEL_FEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct uc_kernel {
	char release[65];
	bool btf;			/* /sys/kernel/btf/vmlinux */
	bool tp_submit_req;		/* io_uring_submit_req (5.18+) */
	bool tp_complete_req;		/* io_uring_complete(ctx, req, cqe) */
	bool tp_cqe_overflow;		/* io_uring_cqe_overflow */
	bool tp_cqring_wait;		/* io_uring_cqring_wait */
	bool tp_exit_group_dead;	/* sched_process_exit(p, group_dead) */
	uint64_t reissue_flag;		/* REQ_F_REISSUE, 0 if unknown */
};

/* Fills @k. Returns 0, or -1 with a one-line reason in @err when the
 * kernel lacks something uringcheck cannot work without. */
int kernel_probe(struct uc_kernel *k, char *err, size_t errlen);
void kernel_print(const struct uc_kernel *k, FILE *out);

#endif
