/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading io_uring's kernel structures portably.
 *
 * Everything here goes through CO-RE relocations against the running
 * kernel's BTF, so field moves between kernels are absorbed by libbpf.
 * The per-opcode command structs (struct io_rw, struct io_sr_msg, ...)
 * live in io_kiocb::cmd; the kernel's prep handler has filled them by the
 * time io_uring_submit_req fires (io_submit_sqe: io_init_req -> prep ->
 * trace_io_uring_submit_req), so the user pointers and lengths read here
 * are the ones the kernel will use.
 *
 * Kernel changes this file knows about (for the portability variants):
 *  - v5.19 cef216fc32d7 moved user_data/res into io_kiocb::cqe.
 *  - v6.10 io_kiocb::flags became 64 bits (io_req_flags_t); only the low
 *    bits, which mirror the SQE flags, and REQ_F_REISSUE are read here.
 */
#ifndef __IO_URING_ACCESS_BPF_H
#define __IO_URING_ACCESS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "fixed_layout.bpf.h"

/* Low request flag bits mirror IOSQE_* (REQ_F_*_BIT == IOSQE_*_BIT by
 * design in io_uring_types.h), which makes them stable across kernels. */
#define UC_IOSQE_FIXED_FILE	(1u << 0)
#define UC_IOSQE_IO_DRAIN	(1u << 1)
#define UC_IOSQE_IO_LINK	(1u << 2)
#define UC_IOSQE_IO_HARDLINK	(1u << 3)
#define UC_IOSQE_BUFFER_SELECT	(1u << 5)
#define UC_IOSQE_CQE_SKIP_SUCCESS	(1u << 6)

/* io_sr_msg.flags: IORING_RECVSEND_FIXED_BUF (uapi) */
#define UC_RECVSEND_FIXED_BUF	(1u << 2)

/* include/linux/sched.h; unchanged since io threads appeared in 5.12 */
#define UC_PF_IO_WORKER		0x00000010

/*
 * Whether io thread @t (PF_IO_WORKER) is an io-wq worker rather than an
 * SQPOLL thread, from a kernel fact, never from its name: a new SQPOLL
 * thread still carries its creator's name when it first runs (it renames
 * itself "iou-sqp-N" later), and io-wq workers an SQPOLL thread forks
 * inherit "iou-sqp". io-wq hangs its struct io_worker on the new task's
 * worker_private before waking it (io_uring/io-wq.c, io_init_new_worker);
 * the SQPOLL thread has none. worker_private is 5.17's name (e32cf5dfbe22,
 * before it pf_io_worker); without it, the name is the fallback.
 */
static __always_inline bool io_thread_is_wq_worker(struct task_struct *t)
{
	char comm[8];

	if (bpf_core_field_exists(t->worker_private))
		return BPF_CORE_READ(t, worker_private) != NULL;
	bpf_probe_read_kernel(comm, sizeof(comm), t->comm);
	return comm[4] == 'w';
}

/* io_kiocb::flags is 32 bits before v6.10 (6.1's BTF: unsigned int) and
 * io_req_flags_t (64) since: read only the field's size, so the other
 * half is not the next field's bytes. */
static __always_inline __u64 req_flags(struct io_kiocb *req)
{
	__u64 f = 0;

	bpf_core_read(&f, bpf_core_field_size(req->flags), &req->flags);
	return f;
}

static __always_inline struct io_rw *req_rw(struct io_kiocb *req)
{
	return (struct io_rw *)&req->cmd;
}

/*
 * A READ's or WRITE's buffer: io_rw.addr and io_rw.len. They are
 * neighbours (u64, then u32) in every struct io_rw this runs on, and one
 * bpf_probe_read_kernel then reads both: a helper call was a measurable
 * share of a read's submission path. Two reads where they are not.
 */
static __always_inline void rw_buffer(struct io_kiocb *req, __u64 *addr, __u32 *len)
{
	struct io_rw *rw = req_rw(req);
	struct { __u64 addr; __u32 len; } b = {};

	if (bpf_core_field_size(rw->addr) == sizeof(b.addr) &&
	    bpf_core_field_size(rw->len) == sizeof(b.len) &&
	    bpf_core_field_offset(rw->len) == bpf_core_field_offset(rw->addr) + sizeof(b.addr)) {
		bpf_probe_read_kernel(&b, sizeof(b.addr) + sizeof(b.len),
				      __builtin_preserve_access_index(&rw->addr));
		*addr = b.addr;
		*len = b.len;
		return;
	}
	*addr = BPF_CORE_READ(rw, addr);
	*len = BPF_CORE_READ(rw, len);
}

static __always_inline struct io_sr_msg *req_sr(struct io_kiocb *req)
{
	return (struct io_sr_msg *)&req->cmd;
}

static __always_inline struct io_statx *req_statx(struct io_kiocb *req)
{
	return (struct io_statx *)&req->cmd;
}

static __always_inline struct io_accept *req_accept(struct io_kiocb *req)
{
	return (struct io_accept *)&req->cmd;
}

/*
 * The xattr opcodes' command (io_uring/xattr.c): the value buffer and its
 * size, read through this file's own view of it so that both kernels'
 * names of the context type match (struct xattr_ctx before v6.13,
 * struct kernel_xattr_ctx since): CO-RE follows the member names.
 */
struct io_xattr___uc {
	struct {
		void *value;
		unsigned long size;
	} ctx;
} __attribute__((preserve_access_index));

/* WAITID's command (v6.7+, io_uring/waitid.c): where the siginfo goes. */
struct io_waitid___uc {
	void *infop;
} __attribute__((preserve_access_index));

/* Head of the link chain being assembled on this ring's submit path. */
static __always_inline struct io_kiocb *ctx_link_head(struct io_ring_ctx *ctx)
{
	return BPF_CORE_READ(ctx, submit_state.link.head);
}

/*
 * Before v6.4 (the locked free list went with the io-wq completion
 * rework), a request that io-wq finished was freed by task work onto the
 * ring's locked_free_list, not its free stack, and reached the stack only
 * when the cache ran low: a walk of the stack alone missed it (issue #30:
 * CQE-less pipe WRITEs punted to io-wq on 6.1). Its first node, or 0 on a
 * kernel without that list.
 */
struct io_ring_ctx___locked_free {
	struct io_wq_work_list locked_free_list;
} __attribute__((preserve_access_index));

static __always_inline __u64 ctx_locked_free_first(void *ctx)
{
	struct io_ring_ctx___locked_free *c = ctx;

	if (!bpf_core_field_exists(c->locked_free_list))
		return 0;
	return (__u64)BPF_CORE_READ(c, locked_free_list.first);
}

static __always_inline struct io_kiocb *comp_node_to_req(void *node)
{
	return (struct io_kiocb *)((char *)node -
				   bpf_core_field_offset(struct io_kiocb, comp_list));
}

static __always_inline struct io_ring_ctx *exit_work_to_ctx(void *work)
{
	return (struct io_ring_ctx *)((char *)work -
				      bpf_core_field_offset(struct io_ring_ctx, exit_work));
}

#endif /* __IO_URING_ACCESS_BPF_H */
