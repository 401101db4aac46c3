/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace mode's records (bpf/trace.bpf.c -> trace/), one per kernel
 * event, in one BPF ring buffer, so they reach user space in the order
 * they were written. Plain __u* structs: the layout is the ABI.
 *
 * Every record begins with struct tr_hdr. Timestamps are
 * bpf_ktime_get_ns(), i.e. CLOCK_MONOTONIC.
 */
#ifndef UC_TRACE_H
#define UC_TRACE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

enum tr_type {
	TR_RING = 1,		/* struct tr_ring: a ring created (or first seen) */
	TR_SUBMIT,		/* struct tr_submit: a request accepted */
	TR_POLL_ARM,		/* struct tr_mark: it armed a poll (not ready) */
	TR_PUNT,		/* struct tr_mark: it was queued to io-wq */
	TR_COMPLETE,		/* struct tr_complete: a CQE posted */
	TR_SYS_ENTER,		/* struct tr_syscall: io_uring_enter/register/setup began */
	TR_SYS_EXIT,		/* struct tr_syscall: ... returned */
	TR_THREAD,		/* struct tr_thread: an io-wq or SQPOLL thread on/off CPU */
	TR__COUNT,
};

struct tr_hdr {
	__u16 type;		/* enum tr_type */
	__u16 cpu;
	__u32 pid;		/* tgid of the current task */
	__u32 tid;
	__u32 pad;
	__u64 ts;
};

struct tr_ring {
	struct tr_hdr h;
	__u64 ctx;		/* struct io_ring_ctx *: the ring's identity */
	__s32 fd;		/* -1: not seen created */
	__u32 sq_entries, cq_entries;
	__u32 setup_flags;	/* IORING_SETUP_* */
	char comm[16];
};

struct tr_submit {
	struct tr_hdr h;
	__u64 req;		/* struct io_kiocb *: correlation key until its end */
	__u64 ctx;
	__u64 user_data;
	__u64 addr;		/* buffer address (or the op's pointer argument) */
	__u64 off;
	__u32 len;
	__s32 fd;		/* its file descriptor, or fixed-file index */
	__u8 opcode;
	__u8 sqe_flags;		/* IOSQE_* */
	__u16 ioprio;
	__u16 buf_index;
	__u16 personality;
	__u8 sqpoll;		/* submitted by the SQPOLL thread */
	__u8 link;		/* in a link chain: IOSQE_IO_LINK/HARDLINK on it, or
				 * it follows one that had it */
	__u8 pad[6];
};

struct tr_mark {
	struct tr_hdr h;
	__u64 req;
	__u64 ctx;
};

struct tr_complete {
	struct tr_hdr h;
	__u64 req;		/* 0: a CQE of no request's end (multishot, msg_ring) */
	__u64 ctx;
	__u64 user_data;
	__s32 res;
	__u32 cflags;		/* IORING_CQE_F_* (F_MORE: more CQEs follow) */
	__u32 cq_pos;		/* the CQ index it was posted at */
	__u8 opcode;		/* 0xff: unknown */
	__u8 in_worker;		/* posted by an io-wq worker (h.tid is the worker) */
	__u8 pad[2];
};

struct tr_syscall {
	struct tr_hdr h;
	__u64 ctx;		/* the ring, 0 if none (setup, a bad fd) */
	__u32 nr;		/* 425 setup, 426 enter, 427 register */
	__s32 fd;
	__u64 arg[3];		/* enter: to_submit, min_complete, flags;
				 * register: opcode, arg, nr_args; setup: entries */
	__s64 ret;		/* TR_SYS_EXIT only */
	__u32 sq_head, sq_tail;	/* the ring's indexes at this moment */
	__u32 cq_head, cq_tail;	/* (cq_head: what the program consumed) */
};

struct tr_thread {
	struct tr_hdr h;	/* h.pid/tid: the thread itself */
	__u8 on;		/* 1: switched in, 0: out */
	__u8 sqpoll;		/* iou-sqp-*, else iou-wrk-* */
	__u8 pad[6];
	char comm[16];
};

#endif
