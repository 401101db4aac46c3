/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Structures whose layout an ABI fixes (x86-64 user registers, io_uring
 * and socket uapi) or that every supported kernel shares (a list node's
 * next pointer first), read at plain offsets rather than through CO-RE.
 *
 * Why: for every type the programs relocate against, libbpf searches
 * the kernel's whole BTF for candidates (126k types here, ~0.7 ms a
 * search, before any program loads); these ten were over a third of
 * those searches. Each layout is checked against the kernel headers the
 * programs are built with.
 */
#ifndef __FIXED_LAYOUT_BPF_H
#define __FIXED_LAYOUT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

/* struct pt_regs on x86-64: struct user_regs_struct's order (ptrace). */
struct uc_regs {
	__u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	__u64 ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};

/* struct user_msghdr (uapi, 64-bit) */
struct uc_msghdr {
	__u64 name;
	__s32 namelen;
	__u32 pad;
	__u64 iov, iovlen;
	__u64 control, controllen;
	__u32 flags, pad2;
};

/* struct io_uring_rsrc_register, io_uring_rsrc_update2 (uapi) */
struct uc_rsrc_register {
	__u32 nr, flags;
	__u64 resv2, data, tags;
};

struct uc_rsrc_update2 {
	__u32 offset, resv;
	__u64 data, tags;
	__u32 nr, resv2;
};

/* struct io_uring_cqe (uapi), without the CQE32 tail */
struct uc_cqe {
	__u64 user_data;
	__s32 res;
	__u32 flags;
};

/* struct list_head, struct io_wq_work_node: the next node first */
struct uc_node {
	struct uc_node *next;
};

/* struct k_sigaction: its struct sigaction first, the handler first in
 * that (x86-64; the kernel's own sigaction has kept this order). */
#define UC_SA_HANDLER_OFF	0

#define UC_STATX_SIZE		256	/* sizeof(struct statx), uapi */
#define UC_SIGINFO_SIZE		128	/* sizeof(siginfo_t), uapi (WAITID) */
#define UC_EPOLL_EVENT_SIZE	12	/* packed on x86-64, uapi */

#define UC_LAYOUT_AS(a, f, b, g) \
	_Static_assert(__builtin_offsetof(struct a, f) == __builtin_offsetof(struct b, g), \
		       #a "." #f " moved")
UC_LAYOUT_AS(uc_regs, r10, pt_regs, r10);
UC_LAYOUT_AS(uc_regs, dx, pt_regs, dx);
UC_LAYOUT_AS(uc_regs, di, pt_regs, di);
UC_LAYOUT_AS(uc_regs, orig_ax, pt_regs, orig_ax);
UC_LAYOUT_AS(uc_regs, ip, pt_regs, ip);
UC_LAYOUT_AS(uc_regs, cs, pt_regs, cs);
UC_LAYOUT_AS(uc_regs, sp, pt_regs, sp);
_Static_assert(sizeof(struct uc_regs) == sizeof(struct pt_regs), "pt_regs");
UC_LAYOUT_AS(uc_msghdr, namelen, user_msghdr, msg_namelen);
UC_LAYOUT_AS(uc_msghdr, iov, user_msghdr, msg_iov);
UC_LAYOUT_AS(uc_msghdr, iovlen, user_msghdr, msg_iovlen);
UC_LAYOUT_AS(uc_msghdr, control, user_msghdr, msg_control);
UC_LAYOUT_AS(uc_msghdr, controllen, user_msghdr, msg_controllen);
_Static_assert(sizeof(struct uc_msghdr) == sizeof(struct user_msghdr), "user_msghdr");
UC_LAYOUT_AS(uc_rsrc_register, data, io_uring_rsrc_register, data);
_Static_assert(sizeof(struct uc_rsrc_register) == sizeof(struct io_uring_rsrc_register),
	       "io_uring_rsrc_register");
UC_LAYOUT_AS(uc_rsrc_update2, data, io_uring_rsrc_update2, data);
UC_LAYOUT_AS(uc_rsrc_update2, nr, io_uring_rsrc_update2, nr);
_Static_assert(sizeof(struct uc_rsrc_update2) == sizeof(struct io_uring_rsrc_update2),
	       "io_uring_rsrc_update2");
UC_LAYOUT_AS(uc_cqe, res, io_uring_cqe, res);
UC_LAYOUT_AS(uc_cqe, flags, io_uring_cqe, flags);
_Static_assert(sizeof(struct uc_cqe) == sizeof(struct io_uring_cqe), "io_uring_cqe");
UC_LAYOUT_AS(uc_node, next, list_head, next);
UC_LAYOUT_AS(uc_node, next, io_wq_work_node, next);
_Static_assert(__builtin_offsetof(struct k_sigaction, sa.sa_handler) == UC_SA_HANDLER_OFF,
	       "k_sigaction.sa.sa_handler moved");
_Static_assert(sizeof(struct statx) == UC_STATX_SIZE, "statx");
_Static_assert(sizeof(struct kernel_siginfo) <= UC_SIGINFO_SIZE, "siginfo");
_Static_assert(sizeof(struct epoll_event) == UC_EPOLL_EVENT_SIZE, "epoll_event");

/* A kernel word at @p (0 if it cannot be read), as BPF_CORE_READ reads. */
static __always_inline __u64 uc_read_u64(const void *p)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), p);
	return v;
}

/*
 * A saved user register. UC_REG: through a pointer the verifier knows as
 * struct pt_regs (a tp_btf argument, bpf_task_pt_regs()): a direct load,
 * which the JIT makes a plain move guarded by an exception-table entry. A
 * helper call per register (bpf_probe_read_kernel, ~20 ns in this VM)
 * was a tenth of a qd1 fio read's added cost: eight registers a stack
 * capture, three to six at each system call. The offsets are the ABI's
 * (checked above), so no CO-RE relocation is needed.
 * UC_REG_NR: through an address held as a plain number (a global
 * function takes no kernel pointer), read with the helper.
 */
#define UC_REG(regs, f)	(((const struct uc_regs *)(regs))->f)
#define UC_REG_NR(regs, f)	uc_read_u64(&((const struct uc_regs *)(regs))->f)
#define UC_NEXT(node)	((void *)uc_read_u64(&((const struct uc_node *)(node))->next))

#endif /* __FIXED_LAYOUT_BPF_H */
