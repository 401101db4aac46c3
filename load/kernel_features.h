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
	bool tp_submit_req;		/* io_uring_submit_req(req) (6.4+) */
	bool tp_submit_sqe;		/* io_uring_submit_sqe(req, nonblock) */
	bool tp_complete_req;		/* io_uring_complete(ctx, req, cqe) */
	bool tp_complete_fields;	/* io_uring_complete(ctx, req, ud, res, ...) */
	bool tp_cqe_overflow;		/* io_uring_cqe_overflow */
	bool tp_exit_group_dead;	/* sched_process_exit(p, group_dead) */
	bool tp_exit_plain;		/* sched_process_exit(p) */
	bool tp_poll_arm_req;		/* io_uring_poll_arm(req, mask, events) (5.19+) */
	bool tp_async_work_req;		/* io_uring_queue_async_work(req, rw) (5.19+) */
	bool tp_cqring_wait;		/* io_uring_cqring_wait(ctx, min_events) */
	bool task_vma_iter;		/* bpf_iter_task_vma_* kfuncs (6.7+) */
	bool bpf_loop;			/* bpf_loop helper (5.17+) */
	unsigned hz;			/* CONFIG_HZ, 0 if no config found */
	uint64_t reissue_flag;		/* REQ_F_REISSUE, 0 if unknown */
	uint64_t buffer_selected_flag;	/* REQ_F_BUFFER_SELECTED, 0 if unknown */
	uint64_t buffer_ring_flag;	/* REQ_F_BUFFER_RING, 0 if unknown */
	uint64_t buffers_commit_flag;	/* REQ_F_BUFFERS_COMMIT, 0: none (6.1) */
	uint32_t iobl_buf_ring;		/* IOBL_BUF_RING, 0: none (6.1) */
	uint32_t iobl_inc;		/* IOBL_INC, 0: none */
	/* For bpf_rdonly_cast (6.2+; bpf/untrusted.bpf.h), 0: none */
	uint32_t btf_id_io_kiocb;
	uint32_t btf_id_io_ring_ctx;
};

/* Fills @k. Returns 0, or -1 with a one-line reason in @err when the
 * kernel lacks something uringcheck cannot work without. */
int kernel_probe(struct uc_kernel *k, char *err, size_t errlen);
/* The same, handing over the kernel's parsed BTF in *@keep (the caller
 * frees it) when the probe got that far, NULL otherwise. */
struct btf;
int kernel_probe_keep(struct uc_kernel *k, struct btf **keep, char *err, size_t errlen);
/* The same from @parsed, the kernel's BTF read already (taken over), or
 * read here if NULL; and @extra's ids found in the same walk over the
 * kernel's types (kernel_btf.h). */
struct kernel_btf_name;
int kernel_probe_from(struct uc_kernel *k, struct btf *parsed, struct btf **keep,
		      struct kernel_btf_name *extra, int nextra, char *err, size_t errlen);
void kernel_print(const struct uc_kernel *k, FILE *out);
int kernel_probe_verdict(struct uc_kernel *k, char *err, size_t errlen);
/* Sync loads (write, send) are judged: the wait hooks take the request. */
bool kernel_judges_loads(const struct uc_kernel *k);
/* One line: what a run on this kernel can judge. */
const char *kernel_tier(const struct uc_kernel *k);

#endif
