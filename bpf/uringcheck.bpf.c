// SPDX-License-Identifier: GPL-2.0
/*
 * uringcheck kernel side: follow the target's process tree, track every
 * io_uring request those processes submit until the kernel finishes it,
 * and send the requests that hold user memory to user space, in order.
 *
 * Only tracepoints are used (tp_btf): kernels we run on may lack kprobes,
 * and fentry/fexit may be refused (the 6.18 CI kernel returns EPERM).
 *
 *   io_uring_create        ring created by a tracked process
 *   io_uring_submit_req    request accepted (after its prep)
 *   io_uring_complete      CQE posted for a request: its end
 *   io_uring_cqe_overflow  CQE went to the overflow list
 *   sched_process_{fork,exec,exit}
 *
 * A request that ends without a CQE of its own fires no per-request
 * event; bpf/request_ends.bpf.h says where its end is found.
 *
 * This file holds the programs above; the fragments included below hold
 * the state they share (one concern each, each including what it uses)
 * and the other programs: system calls, io_uring_register and fatal
 * signals (syscalls.bpf.h), waits (channels.bpf.h), the reap-lag sampler
 * and the liburing uprobes (reap_lag.bpf.h), glibc's free and realloc
 * (heap_release.bpf.h) and its allocation calls (heap_alloc.bpf.h),
 * liburing's publishing calls on SQPOLL rings (sqpoll_stacks.bpf.h).
 *
 * One loaded copy serves every uringcheck instance on the machine
 * (checker/shared.h, bpf/session.bpf.h): each is a session, with its own event buffer,
 * counters and settings; a process, ring or request carries the session
 * it belongs to, and its records go to that session's buffer only.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#define UC_PIDNS_HELPER_ONLY
#include "pidns.bpf.h"
#include "uringcheck.h"
#include "io_uring_access.bpf.h"
#include "opcodes.bpf.h"
#include "untrusted.bpf.h"
#include "session.bpf.h"
#include "tracked.bpf.h"
#include "events.bpf.h"
#include "sequence.bpf.h"
#include "lag_clock.bpf.h"
#include "rings.bpf.h"
#include "ring_index.bpf.h"
#include "inflight.bpf.h"
#include "heap_bounds.bpf.h"
#include "enter_state.bpf.h"
#include "stacks.bpf.h"
#include "provided_buffers.bpf.h"
#include "request_ends.bpf.h"
#include "stack_frames.bpf.h"
#include "iovecs.bpf.h"
#include "reap_lag.bpf.h"
#include "channels.bpf.h"
#include "syscalls.bpf.h"
#include "teardown.bpf.h"
#include "heap_release.bpf.h"
#include "heap_alloc.bpf.h"
#include "sqpoll_stacks.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* The submit record is assembled here, then copied into the ring buffer
 * only when user space needs it: most requests (NOP, POLL, TIMEOUT, ...)
 * hold no user memory and cost no ring-buffer traffic. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uc_submit);
} submit_scratch SEC(".maps");

/* The submission's in-flight entry, assembled beside it: off the stack,
 * whose frames 6.1 adds up along the deepest call chain (at most 512
 * bytes; submit_finish() -> held scan -> ring search is one). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct inflight_val);
} submit_val SEC(".maps");

/* ---- process tree ---------------------------------------------------- */

SEC("tp_btf/sched_process_fork")
int BPF_PROG(uc_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = task_tgid_in_ns(parent);
	__u32 ctgid = task_tgid_in_ns(child);
	struct uc_tracked *pt, ct = { .state = UC_TRACKED };
	struct uc_proc *e;

	if (!ctgid || !(pt = bpf_map_lookup_elem(&tracked, &ptgid)))
		return 0;
	/* Threads share the tgid and are followed already; their own
	 * stack is noted (stack-inflight). */
	if (ptgid == ctgid) {
		stack_thread_born(child);
		return 0;
	}
	ct.session = pt->session;
	/* Not followed: its own pid reads 0 (bpf/pidns.bpf.h); said. */
	if (task_below_ns(child)) {
		stat_inc(ct.session, UC_STAT_PROCS_NS_BELOW);
		return 0;
	}
	/* A new process: a tgid used before (maps_sent outlives processes
	 * and instances) has not had its mappings sent. */
	bpf_map_delete_elem(&maps_sent, &ctgid);
	if (bpf_map_update_elem(&tracked, &ctgid, &ct, BPF_ANY)) {
		stat_inc(ct.session, UC_STAT_PROCS_FULL);
		return 0;
	}
	e = ev_reserve(ct.session, sizeof(*e), UC_EV_FORK);
	if (!e)
		return 0;
	fill_hdr(&e->hdr, UC_EV_FORK, ctgid);
	e->parent_tgid = ptgid;
	e->exit_code = 0;
	ev_submit(ct.session, e);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(uc_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct uc_tracked *t;
	struct uc_proc *e;
	__u32 tgid, sid;

	if (!(t = current_tracked(&tgid)))
		return 0;
	sid = t->session;
	bpf_map_delete_elem(&maps_sent, &tgid);	/* a new image */
	/* ... and a new stack: the exec'ing thread's entries go. */
	stack_thread_gone((__u32)current_pid_tgid());
	stack_thread_gone(old_pid);
	e = ev_reserve(sid, sizeof(*e), UC_EV_EXEC);
	if (!e)
		return 0;
	fill_hdr(&e->hdr, UC_EV_EXEC, tgid);
	e->parent_tgid = 0;
	e->exit_code = 0;
	ev_submit(sid, e);
	return 0;
}

/* Every ring of an exiting process leaves the table and the list. */
struct forget_walk {
	__u32 tgid, pad;
	__u64 pick;		/* its rings, read before its entry goes */
};

static long forget_ring(__u64 i, struct forget_walk *f)
{
	struct ring_info *ri;
	__u64 ctx;

	if (!ring_pick_slot(f->pick, &i))
		return 0;
	ri = ring_at(i, &ctx);
	if (ri && ri->tgid == f->tgid) {
		ring_slot_release(ri->slot1, ctx, ri->tgid);
		pbuf_ring_gone(ri);
		bpf_map_delete_elem(&rings, &ctx);
	}
	return 0;
}

static __always_inline int on_exit(struct task_struct *p, bool group_dead)
{
	struct forget_walk f = {};
	struct uc_tracked *t;
	struct uc_proc *e;
	__u32 tgid, sid, n;

	/* Every thread: its own stack's entry (stack_frames.bpf.h). */
	stack_thread_gone((__u32)current_pid_tgid());
	if (!group_dead || !(t = current_tracked(&tgid)))
		return 0;
	sid = t->session;
	/* The tgid may be recycled by an unrelated process: forget it, its
	 * rings, and its requests (their teardown freed them, else they are
	 * freed here; user space forgets them on UC_EV_EXIT). */
	if (t->state != UC_TRACKED_TEARING_DOWN && t->used_uring)
		forget_process(sid, tgid);	/* no teardown freed its slots */
	f.tgid = tgid;
	n = ring_pick_init(&f.pick, tgid);	/* its tracked entry lists them */
	bpf_map_delete_elem(&tracked, &tgid);
	bpf_map_delete_elem(&maps_sent, &tgid);
	bpf_loop(n, forget_ring, &f, 0);
	e = ev_reserve(sid, sizeof(*e), UC_EV_EXIT);
	if (!e)
		return 0;
	fill_hdr(&e->hdr, UC_EV_EXIT, tgid);
	e->parent_tgid = 0;
	e->exit_code = BPF_CORE_READ(p, exit_code);
	ev_submit(sid, e);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(uc_exit, struct task_struct *p, bool group_dead)
{
	return on_exit(p, group_dead);
}

/* Before v6.16 (group_dead became an argument): do_exit() has already
 * counted this thread out of signal->live when the tracepoint fires. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(uc_exit_plain, struct task_struct *p)
{
	return on_exit(p, BPF_CORE_READ(p, signal, live.counter) == 0);
}

/* ---- rings ----------------------------------------------------------- */

/* A fresh ring_info is too large for the BPF stack: copy this one. */
static const struct ring_info ring_info_init;

/* Ring @ctx of process @tgid (session @sid) into the table, and its
 * record sent: @who is tgid << 32 | sid, @sizes sq << 32 | cq (a global
 * function takes five arguments). Global: verified once, not again in
 * each state of a submission that finds its ring unseen. */
__noinline int ring_track(__u64 ctx, __u64 who, int fd, __u32 flags, __u64 sizes)
{
	__u32 tgid = who >> 32, sid = (__u32)who, slot1 = 0;
	struct uc_ring_create *e;
	struct ring_info *ri;

	/* A new ring at the address of one whose entry is still here keeps
	 * that entry's slot in the ring list. */
	ri = bpf_map_lookup_elem(&rings, &ctx);
	if (ri) {
		slot1 = ri->slot1;
		if (ri->tgid != tgid)
			proc_ring_drop(ri->tgid, slot1);
	}
	if (bpf_map_update_elem(&rings, &ctx, &ring_info_init, BPF_ANY)) {
		stat_inc(sid, UC_STAT_RINGS_FULL);
		return 0;
	}
	if (!slot1)
		slot1 = ring_slot_claim(ctx);
	/* a new ring here: the SQ positions noted for an old one are not its */
	bpf_map_delete_elem(&sq_pubs, &ctx);
	ri = bpf_map_lookup_elem(&rings, &ctx);
	if (ri) {
		ri->tgid = tgid;
		ri->session = sid;
		ri->slot1 = slot1;
		proc_ring_add(tgid, slot1);
	}
	e = ev_reserve(sid, sizeof(*e), UC_EV_RING_CREATE);
	if (!e)
		return 0;
	fill_hdr(&e->hdr, UC_EV_RING_CREATE, tgid);
	e->ctx = ctx;
	e->fd = fd;
	e->setup_flags = flags;
	e->sq_entries = sizes >> 32;
	e->cq_entries = (__u32)sizes;
	/* Wake the reader now: it snapshots the process's mappings while
	 * the process surely still exists (stacks symbolize against them). */
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	return 0;
}

static __always_inline int on_ring_create(int fd, void *ring, __u32 sq_entries,
					  __u32 cq_entries, __u32 flags, bool maps)
{
	struct uc_session_cfg *cfg;
	struct uc_tracked *t;
	__u32 tgid, sid;

	if (!(t = current_tracked(&tgid)) && !(t = take_for_all(tgid)))
		return 0;
	sid = t->session;
	t->used_uring = 1;
	cfg = session_cfg(sid);
	if (maps && cfg && cfg->stack_bytes)
		send_mappings(bpf_get_current_task_btf(), tgid, sid);
	ring_track((__u64)ring, (__u64)tgid << 32 | sid, fd, flags,
		   (__u64)sq_entries << 32 | cq_entries);
	return 0;
}

/* v6.7 (the task-VMA iterator): the mappings are sent from here. Named
 * apart from the other objects' plain ring_create (load/variants.def). */
SEC("tp_btf/io_uring_create")
int BPF_PROG(uc_ring_create_maps, int fd, void *ring, __u32 sq_entries,
	     __u32 cq_entries, __u32 flags)
{
	return on_ring_create(fd, ring, sq_entries, cq_entries, flags, true);
}

/* Before v6.7 there is no task-VMA iterator (bpf_iter_task_vma_*): the
 * mappings are not sent; user space reads /proc/PID/maps instead. */
SEC("tp_btf/io_uring_create")
int BPF_PROG(uc_ring_create_nomaps, int fd, void *ring, __u32 sq_entries,
	     __u32 cq_entries, __u32 flags)
{
	return on_ring_create(fd, ring, sq_entries, cq_entries, flags, false);
}

/* ---- submission ------------------------------------------------------ */
/* An iovec array's data ranges for the submit record, from slot @slot. */
static __always_inline void add_iovecs(struct uc_submit *s, __u32 slot,
				       struct uc_range *uvec, __u64 nr, __u32 sid)
{
	__u32 ninline;
	int sent;

	s->flags |= UC_SUB_VECTORED;
	sent = read_iovecs(s->ranges, slot, uvec, nr, s->hdr.tgid, sid, s->seq,
			   &ninline);
	if (sent < 0) {
		s->flags |= UC_SUB_IOVEC_FAULT;
		return;
	}
	s->nr_inline = ninline;
	s->nr_ranges = sent;
}

/* Global: verified once, not at each of classify()'s three callers (the
 * inline reads, each in its several states, were most of classify). */
__noinline int add_iovecs_at(struct uc_submit *s, __u32 slot, __u64 uvec, __u64 nr,
			     __u32 sid)
{
	if (s)
		add_iovecs(s, slot, (struct uc_range *)uvec, nr, sid);
	return 0;
}

static __always_inline void add_range(struct uc_submit *s, __u64 addr, __u64 len)
{
	__u32 i = s->nr_inline;

	if (!addr || !len || i >= UC_INLINE_RANGES)
		return;
	s->ranges[i].addr = addr;
	s->ranges[i].len = len;
	s->nr_inline = i + 1;
	s->nr_ranges = i + 1;
}

/* struct user_msghdr: name and control are written by RECVMSG only;
 * SENDMSG's are copied at submission. */
static __always_inline void add_msghdr(struct uc_submit *s, void *umsg, bool sink,
				       __u32 sid)
{
	struct uc_msghdr m;

	if (bpf_probe_read_user(&m, sizeof(m), umsg)) {
		stat_inc(sid, UC_STAT_IOVEC_FAULT);
		s->flags |= UC_SUB_IOVEC_FAULT;
		return;
	}
	if (sink) {
		add_range(s, m.name, (__u32)m.namelen);
		add_range(s, m.control, m.controllen);
	}
	add_iovecs_at(s, s->nr_inline, m.iov, m.iovlen, sid);
}

/*
 * Fill direction and ranges from the prepared request.
 *
 * A global (not inlined) function: the verifier checks it once, on its
 * own, instead of once for every state the caller reaches it in. Inlined,
 * the per-opcode branches multiplied the submit program's states: it took
 * ~40 ms to verify, a quarter of uringcheck's start-up.
 */
__noinline int classify(struct uc_submit *s, __u64 rflags, __u32 sid)
{
	bool bsel = rflags & UC_IOSQE_BUFFER_SELECT;
	struct io_kiocb *req;
	__u32 op;

	if (!s)
		return 0;
	req = (struct io_kiocb *)s->req;
	op = s->opcode;

	switch (op) {
	case IORING_OP_READ:
	case IORING_OP_READ_FIXED:
	case IORING_OP_READ_MULTISHOT:
	case IORING_OP_READV:
	case IORING_OP_READV_FIXED:
	case IORING_OP_RECV:
	case IORING_OP_RECVMSG:
	case IORING_OP_STATX:
	case IORING_OP_ACCEPT:
	case IORING_OP_EPOLL_WAIT:
	case IORING_OP_WAITID:
	case IORING_OP_GETXATTR:
	case IORING_OP_FGETXATTR:
		s->direction = UC_DIR_SINK;
		break;
	case IORING_OP_WRITE:
	case IORING_OP_WRITE_FIXED:
	case IORING_OP_WRITEV:
	case IORING_OP_WRITEV_FIXED:
	case IORING_OP_SEND:
	case IORING_OP_SENDMSG:
	case IORING_OP_SEND_ZC:
	case IORING_OP_SENDMSG_ZC:
		s->direction = UC_DIR_SOURCE;
		break;
	default:
		/* An opcode that holds user memory whose range is not read
		 * here, or one newer than lib/opcodes.def: counted, so the
		 * run says what it did not judge. */
		if (opcode_unjudged(op))
			stat_inc(sid, UC_STAT_OPS_UNJUDGED);
		return 0;
	}
	if (bsel) {
		/* The kernel picks a provided buffer at issue time: its
		 * range comes with a UC_EV_PICK (provided_buffers.bpf.h). */
		s->flags |= UC_SUB_BUFFER_SELECT;
		return 0;
	}

	switch (op) {
	case IORING_OP_READ_FIXED:
	case IORING_OP_WRITE_FIXED:
		s->flags |= UC_SUB_FIXED_BUF;
		/* fallthrough: the address is a user VA inside the buffer */
	case IORING_OP_READ:
	case IORING_OP_WRITE: {
		__u64 addr;
		__u32 len;

		rw_buffer(req, &addr, &len);
		add_range(s, addr, len);
		break;
	}
	case IORING_OP_READV_FIXED:
	case IORING_OP_WRITEV_FIXED:
		s->flags |= UC_SUB_FIXED_BUF;
		/* fallthrough */
	case IORING_OP_READV:
	case IORING_OP_WRITEV:
		add_iovecs_at(s, 0, (__u64)BPF_CORE_READ(req_rw(req), addr),
			      BPF_CORE_READ(req_rw(req), len), sid);
		break;
	case IORING_OP_SEND_ZC:
	case IORING_OP_SEND:
	case IORING_OP_RECV:
		if (BPF_CORE_READ(req_sr(req), flags) & UC_RECVSEND_FIXED_BUF)
			s->flags |= UC_SUB_FIXED_BUF;
		add_range(s, (__u64)BPF_CORE_READ(req_sr(req), buf),
			  (__u32)BPF_CORE_READ(req_sr(req), len));
		break;
	case IORING_OP_SENDMSG_ZC:
		/* v6.15: vectored zero-copy sends from registered buffers */
		if (BPF_CORE_READ(req_sr(req), flags) & UC_RECVSEND_FIXED_BUF)
			s->flags |= UC_SUB_FIXED_BUF;
		/* fallthrough */
	case IORING_OP_SENDMSG:
		add_msghdr(s, BPF_CORE_READ(req_sr(req), umsg), false, sid);
		break;
	case IORING_OP_EPOLL_WAIT:
		/* v6.15 added the opcode: the kernel stores the events array
		 * at completion, so it is held while in flight. */
		if (bpf_core_type_exists(struct io_epoll_wait)) {
			struct io_epoll_wait *ew = (struct io_epoll_wait *)&req->cmd;
			int max = BPF_CORE_READ(ew, maxevents);

			if (max > 0)
				add_range(s, (__u64)BPF_CORE_READ(ew, events),
					  (__u64)max * UC_EPOLL_EVENT_SIZE);
		}
		break;
	case IORING_OP_RECVMSG:
		add_msghdr(s, BPF_CORE_READ(req_sr(req), umsg), true, sid);
		break;
	case IORING_OP_STATX:
		add_range(s, (__u64)BPF_CORE_READ(req_statx(req), buffer),
			  UC_STATX_SIZE);
		break;
	case IORING_OP_WAITID:
		/* v6.7: the kernel stores the siginfo at completion */
		if (bpf_core_type_exists(struct io_waitid)) {
			struct io_waitid___uc *w = (void *)&req->cmd;

			add_range(s, (__u64)BPF_CORE_READ(w, infop), UC_SIGINFO_SIZE);
		}
		break;
	case IORING_OP_GETXATTR:
	case IORING_OP_FGETXATTR: {
		/* the value buffer, stored into in io-wq (always async) */
		struct io_xattr___uc *x = (void *)&req->cmd;

		add_range(s, (__u64)BPF_CORE_READ(x, ctx.value),
			  (__u32)BPF_CORE_READ(x, ctx.size));
		break;
	}
	case IORING_OP_ACCEPT: {
		int *ulen = BPF_CORE_READ(req_accept(req), addr_len);
		int alen = 0;

		if (ulen && !bpf_probe_read_user(&alen, sizeof(alen), ulen)) {
			add_range(s, (__u64)ulen, sizeof(int));
			if (alen > 0)
				add_range(s, (__u64)BPF_CORE_READ(req_accept(req), addr),
					  (__u32)alen);
		}
		break;
	}
	}
	return 0;
}

/*
 * Link chains: the kernel appends to submit_state.link after
 * io_uring_submit_req, so a non-empty head means "joins it", after its
 * last member. Every request notes that member (its end ends them), and
 * user space gets the head's seq (members are ordered). Global, like the
 * next one: pieces of the submit program verified on their own.
 */
__noinline int link_position(__u64 ring_addr, __u64 rflags, struct inflight_val *v,
			     struct uc_submit *s)
{
	struct io_ring_ctx *ring = (struct io_ring_ctx *)ring_addr;
	/* Read as numbers (a pointer may not be hashed). */
	__u64 head = (__u64)BPF_CORE_READ(ring, submit_state.link.head);
	struct inflight_val *hv, *pv;
	int hslot, pslot;

	if (!v || !s)
		return 0;
	if (!head) {
		if (rflags & (UC_IOSQE_IO_LINK | UC_IOSQE_IO_HARDLINK))
			s->chain_seq = v->seq;
		return 0;
	}
	hslot = inf_find(head);
	hv = hslot >= 0 ? inf_val(hslot) : NULL;
	if (hv)
		s->chain_seq = hv->seq;
	pslot = inf_find((__u64)BPF_CORE_READ(ring, submit_state.link.last));
	pv = pslot >= 0 ? inf_val(pslot) : NULL;
	if (pv) {
		v->prev_slot = pslot + 1;
		v->prev_seq = pv->seq;
	}
	return 0;
}

/*
 * A zero-copy send's buffer stays pinned until its notification
 * completes, which may be before or after the request itself: both are
 * tracked, and the end is the notification's (the request's own CQE if
 * the notification cannot be tracked). A notification slot is fresh: an
 * entry still there ended unseen.
 *
 * The notification is the request that holds the memory: it is counted in
 * its ring's inflight and mem_inflight (by submit_finish, @counted: the
 * ring is known), so the kernel-side filters that skip a process with no
 * memory in flight (a free(), a sync call, a ring's teardown) see a
 * zero-copy send that waits only for its notification.
 */
__noinline int track_notif(__u64 notif, struct inflight_val *v, struct uc_submit *s,
			   __u32 counted)
{
	struct inflight_val nv;

	if (!notif || !v || !s)
		return 0;
	nv = *v;
	nv.flags = INF_REPORTED | INF_NOTIF | INF_HOLDS_MEM | (counted ? INF_COUNTED : 0);
	nv.prev_slot = 0;
	end_reused(notif);
	if (!inf_insert(notif, &nv)) {
		v->flags = INF_ZC_MAIN;
		s->flags |= UC_SUB_ZC_NOTIF;
	} else {
		stat_inc(v->session, UC_STAT_INFLIGHT_FULL);
	}
	return 0;
}

/*
 * A request that holds no memory is still sent when its user_data looks
 * like a pointer to a request context (user-data-reuse: a NOP, POLL or
 * TIMEOUT reusing the context of one still in flight): 8-byte aligned and
 * inside the process's data, bss and heap, or in its mmap area and stack
 * (the top 1 TiB below mm->mmap_base and up), where contexts live. A
 * counter used as a tag (nop_bench: 0, 1, 2, ...) is neither, so it costs
 * a few reads at most. Not the cancel/remove family, whose user_data
 * commonly names its target's context, nor requests whose success CQE is
 * skipped. The checker then asks /proc for a writable mapping.
 */
static __always_inline bool context_tag(__u8 op, __u64 ud, __u64 rflags)
{
	struct mm_struct *mm;
	__u64 top;

	if (ud < 0x10000 || ud >= 0x800000000000ULL || (ud & 7) ||
	    (rflags & UC_IOSQE_CQE_SKIP_SUCCESS) || op == IORING_OP_ASYNC_CANCEL ||
	    op == IORING_OP_POLL_REMOVE || op == IORING_OP_TIMEOUT_REMOVE)
		return false;
	mm = BPF_CORE_READ(bpf_get_current_task_btf(), mm);
	if (!mm)
		return false;
	top = BPF_CORE_READ(mm, mmap_base);
	if (top > (1ULL << 40) && ud >= top - (1ULL << 40))
		return true;
	return ud >= BPF_CORE_READ(mm, start_data) && ud < BPF_CORE_READ(mm, brk);
}

/*
 * The per-request path: this program and uc_complete run in the
 * submitting and completing threads for every request, so they are kept
 * lean: tp_btf arguments are read with direct loads (no helper call per
 * field), the clock is read once, and each map is looked up once.
 */
/* A zero-copy send's notification tracked with INF_COUNTED (track_notif):
 * in its ring's counts until its end counts it down. */
static __always_inline void count_notif(struct ring_info *ri, struct uc_submit *s)
{
	if (!ri || !(s->flags & UC_SUB_ZC_NOTIF))
		return;
	heap_bounds_note(ri, s);
	__sync_fetch_and_add(&ri->inflight, 1);
	__sync_fetch_and_add(&ri->mem_inflight, 1);
}

/*
 * The rest of a submission, from its stack capture on. Global: verified
 * once, not once for each way on_submit() got here (a thread with an
 * enter_state or without, a ring seen before or not, a record or none:
 * ~4,000 instructions verified for ~600). It reads no kernel pointer.
 * @have_es: the thread has an enter_state, for the stack it keeps.
 */
__noinline int submit_finish(struct uc_submit *s, struct inflight_val *v,
			     struct ring_info *ri, __u32 have_es, __u64 notif)
{
	__u64 key, size, call_stack;
	__u32 nr_inline;
	bool reported;
	int ins;

	if (!s || !v)
		return 0;
	reported = v->flags & INF_REPORTED;
	/* s->stack_id comes in as the stack the thread's io_uring_enter
	 * took already (its enter_state's, 0: none yet). */
	call_stack = s->stack_id;
	s->stack_id = 0;
	/* The request's address as a plain number (a pointer may not be
	 * hashed), from the record classify() may have changed. */
	key = s->req;
	/* An unreported buffer-select request's stack is taken now too,
	 * kept in the store for the record sent later. */
	if (reported || (v->flags & INF_BSEL)) {
		if (bpf_get_current_task_btf()->flags & UC_PF_IO_WORKER) {
			/* No user stack of its own: the one of the program's
			 * call that published the SQE, if one was seen. */
			s->flags |= UC_SUB_SQPOLL;
			sqpoll_stack(s, v->session);
			v->stack_id = s->stack_id;
			v->flags |= INF_SQPOLL |
				    (s->flags & UC_SUB_SQ_UNPUBLISHED ? INF_SQ_UNPUBLISHED : 0);
		} else {
			s->stack_id = v->stack_id =
				submit_stack(v->tgid, v->session, call_stack, have_es);
		}
	}
	if (reported) {
		s->user_data = v->user_data;
		if (notif)
			track_notif(notif, v, s, ri != NULL);
	}
	/* stack-inflight: a range in the submitter's own stack. SQPOLL and
	 * io-wq submitters have none: counted, not judged. */
	if (reported && s->nr_inline) {
		if (v->flags & INF_SQPOLL)
			stat_inc(v->session, UC_STAT_STACK_UNKNOWN);
		else
			stack_note(s, v, v->tgid);
	}
	if (s->sqe_flags & UC_IOSQE_CQE_SKIP_SUCCESS)
		v->flags |= INF_QUIET;
	if (ri)
		v->flags |= INF_COUNTED;
	/* The kernel reuses a request slot only after the request ended, so
	 * an entry already there belongs to a request that ended unseen. */
	ins = inf_insert(key, v);
	if (ins == INF_PRESENT) {
		end_reused(key);
		ins = inf_insert(key, v);
	}
	if (ins) {
		/* Nothing could end it for user space: it is not told of it
		 * at all (a hazard it takes part in is missed, and counted),
		 * rather than kept in flight for ever. */
		stat_inc(v->session, UC_STAT_INFLIGHT_FULL);
		count_notif(ri, s);	/* tracked: its end counts down */
		return 0;
	}
	if (v->flags & INF_BSEL)
		pbuf_track(v, key, ri);
	if (ri) {
		if (v->flags & INF_QUIET) {
			__sync_fetch_and_add(&ri->quiet_inflight, 1);
			__sync_fetch_and_add(&quiet_total, 1);
		}
		__sync_fetch_and_add(&ri->inflight, 1);
		if (v->flags & INF_HOLDS_MEM) {
			heap_bounds_note(ri, s);
			__sync_fetch_and_add(&ri->mem_inflight, 1);
		}
		count_notif(ri, s);
	}
	/* Requests that ended without a CQE go to user space before this
	 * one, which might reuse their memory. */
	if (ri && (ri->quiet_inflight > 0 || ri->ovf_unmatched))
		collect_quiet_ends(s->ctx, ri);	/* as a number */
	/* A buffer this ring's buffer-select requests hold now: sent before
	 * the request that could collide with it. */
	if (ri && ri->pbuf_watched && s->nr_ranges)
		pbuf_held_ring(ri, s->ctx);
	if (v->opcode == IORING_OP_PROVIDE_BUFFERS)
		pbuf_provide_record(s, v->session);
	if (reported) {
		/* Only the inline ranges used are sent. */
		nr_inline = s->nr_inline;
		if (nr_inline > UC_INLINE_RANGES)
			nr_inline = UC_INLINE_RANGES;
		size = offsetof(struct uc_submit, ranges) +
		       nr_inline * sizeof(struct uc_range);
		if (!ev_output(v->session, s, size))
			unreport(key, v->seq);
	}
	return 0;
}

static __always_inline int on_submit(struct io_kiocb *req)
{
	struct inflight_val *v;
	struct enter_state *es = NULL;
	struct enter_cache *ec;
	struct io_ring_ctx *ring;
	struct ring_info *ri;
	struct uc_submit *s;
	__u64 key = (__u64)req, rflags, ring_key, now = 0, notif = 0, call_stack = 0;
	__u32 tgid, sid, zero = 0, have_es;
	struct uc_tracked *t;
	bool reported;

	/* First, before anything branches, and through an untrusted copy of
	 * the argument: read from the trusted one, the verifier looks up by
	 * name, through the kernel's whole BTF, whether the ring pointer
	 * stays trusted, once per state it reaches the read in (see
	 * bpf/untrusted.bpf.h). */
	ring = UC_UNTRUSTED(req, btf_id_io_kiocb)->ctx;
	asm volatile("" : "+r"(ring));
	/* A thread with an enter_state is followed (it is created only for
	 * tracked processes, and dies with the thread): that spares the
	 * tracked-table lookup. SQPOLL and io-wq threads submit outside any
	 * io_uring_enter and have none. */
	/* This CPU's copy of the call's state first (enter_cache_current):
	 * it is there unless the thread was switched out since its call
	 * began. */
	if (!(bpf_get_current_task_btf()->flags & UC_PF_IO_WORKER) &&
	    (ec = enter_cache_current())) {
		tgid = current_pid_tgid() >> 32;
		sid = ec->session;
		now = ec->ts;
		call_stack = ec->stack_id;
		have_es = 1;
		goto followed;
	}
	if (!(bpf_get_current_task_btf()->flags & UC_PF_IO_WORKER))
		es = bpf_task_storage_get(&enter_states, bpf_get_current_task_btf(),
					  0, 0);
	if (es && es->session != ENTER_NO_SESSION) {
		tgid = current_pid_tgid() >> 32;
		sid = es->session;
	} else if ((t = current_tracked(&tgid))) {
		sid = t->session;
		t->used_uring = 1;
	} else {
		return 0;
	}
	/* What is wanted of the enter_state, as numbers: the pointer is not
	 * carried on (each way here, with one or without, would be a state
	 * of its own for all that follows). */
	have_es = es != NULL;
	if (es) {
		now = es->ts;
		call_stack = es->stack_id;
	}
followed:
	ring_key = (__u64)ring;
	ri = bpf_map_lookup_elem(&rings, &ring_key);
	if (!ri) {
		/* A ring we did not see created (inherited or received). Its
		 * address as a plain number (copied, the verifier forgets its
		 * type): a global function takes no kernel pointer. */
		__u64 ring_nr = 0;

		bpf_probe_read_kernel(&ring_nr, sizeof(ring_nr), &ring_key);
		/* Its sizes help user space find its descriptor
		 * (checker/ring_fds.c). */
		ring_track(ring_nr, (__u64)tgid << 32 | sid, -1, ring->flags,
			   (__u64)ring->sq_entries << 32 | ring->cq_entries);
		ri = bpf_map_lookup_elem(&rings, &ring_key);
	}
	stat_inc(sid, UC_STAT_SUBMITS);
	v = bpf_map_lookup_elem(&submit_val, &zero);
	if (!v)
		return 0;
	__builtin_memset(v, 0, sizeof(*v));

	if (!now)
		now = bpf_ktime_get_ns();
	v->seq = new_seq();
	v->ctx = ring_key;
	v->user_data = req->cqe.user_data;
	v->ts = now;
	v->tgid = tgid;
	v->tid = (__u32)current_pid_tgid();
	v->opcode = req->opcode;
	v->session = sid;
	v->owner = session_owner(sid);
	rflags = req->flags;

	s = bpf_map_lookup_elem(&submit_scratch, &zero);
	if (!s)
		return 0;
	/* ranges[] are written before they are counted: not cleared. */
	__builtin_memset(s, 0, offsetof(struct uc_submit, ranges));
	fill_hdr_at(&s->hdr, UC_EV_SUBMIT, tgid, now);
	s->seq = v->seq;
	s->req = key;
	s->ctx = ring_key;
	s->opcode = v->opcode;
	s->sqe_flags = rflags & 0xff;
	if (rflags & UC_IOSQE_IO_DRAIN)
		s->flags |= UC_SUB_DRAIN;

	classify(s, rflags, sid);
	/* The pipe a read or write moves data through, for the overlap
	 * rule's "write feeds the read" pairs. */
	switch (s->opcode) {
	case IORING_OP_READ: case IORING_OP_READV: case IORING_OP_READ_FIXED:
	case IORING_OP_WRITE: case IORING_OP_WRITEV: case IORING_OP_WRITE_FIXED:
		if (s->nr_ranges)
			submit_pipe(s, req->cqe.fd, rflags & UC_IOSQE_FIXED_FILE);
	}

	/* Most requests are in no chain: no call, no probe read for them. */
	if (ring->submit_state.link.head ||
	    (rflags & (UC_IOSQE_IO_LINK | UC_IOSQE_IO_HARDLINK)))
		link_position(s->ctx, rflags, v, s);

	/* A buffer-select request holds no memory until the kernel picks
	 * a buffer, and most picks never matter (liburing's buf-ring reads
	 * 221,172 times into buffers nothing else touches): it is told of
	 * when one does (pbuf_report_late), unless a chain or drain needs
	 * it known from the start. */
	reported = s->nr_ranges || (s->flags & UC_SUB_DRAIN) ||
		   ((s->flags & UC_SUB_BUFFER_SELECT) && s->chain_seq);
	if (!reported && context_tag(v->opcode, v->user_data, rflags)) {
		s->flags |= UC_SUB_TAG_ONLY;
		reported = true;
	}
	if (s->nr_ranges)
		v->flags |= INF_HOLDS_MEM;
	if (s->direction == UC_DIR_SOURCE)
		v->flags |= INF_SOURCE;
	if (s->flags & UC_SUB_BUFFER_SELECT) {
		v->flags |= INF_BSEL | (rflags & 0xff) << INF_SQE_SHIFT;
		v->bgid = req->buf_index;	/* the group, until the pick */
	}
	if (reported) {
		v->flags |= INF_REPORTED;
		s->buf_index = req->buf_index;
		if (s->opcode == IORING_OP_SEND_ZC || s->opcode == IORING_OP_SENDMSG_ZC)
			notif = (__u64)BPF_CORE_READ(req_sr(req), notif);
	}
	/* The stack this call took already, if any (submit_finish). */
	s->stack_id = call_stack;
	return submit_finish(s, v, ri, have_es, notif);
}

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(uc_submit, struct io_kiocb *req)
{
	return on_submit(req);
}

/* Before v6.4 (5a6d37e7 "io_uring: rename io_uring_submit_sqe"): the
 * same moment, under its old name, with the issue mode as well. */
SEC("tp_btf/io_uring_submit_sqe")
int BPF_PROG(uc_submit_sqe, struct io_kiocb *req, bool force_nonblock)
{
	return on_submit(req);
}

/* ---- completion programs --------------------------------------------- */

static __always_inline int on_complete(struct io_ring_ctx *ring, void *req,
				       __u64 user_data, __s32 res, __u32 cflags,
				       bool typed)
{
	/* req == NULL: an auxiliary CQE (multishot, msg_ring), not an end.
	 * A CQE attributed to a request is its last: multishot requests post
	 * their intermediate CQEs as auxiliary ones. */
	struct uc_session_cfg *cfg;
	__u64 key = (__u64)ring, batch = 0;
	struct ring_info *ri;

	__s64 ended = -1;

	/* The batch being flushed, read before anything branches and
	 * through an untrusted copy of the argument: from a trusted one, the
	 * verifier looks up (by name, through the kernel's whole BTF) whether
	 * the pointer read stays trusted, at every state it reaches the read
	 * in (bpf/untrusted.bpf.h). One load of a line the flush is using. */
	if (typed) {
		batch = (__u64)UC_UNTRUSTED(ring, btf_id_io_ring_ctx)->submit_state.compl_reqs.first;
		asm volatile("" : "+r"(batch));
	}
	/* Not only rings still in the table: a ring forgotten at its
	 * teardown still ends its requests as the kernel cancels them. */
	/* A provided buffer returned: judged before the request's end. */
	if (cflags & UC_CQE_F_BUFFER) {
		/* The ring as a plain number: a global function takes no
		 * kernel pointer (copied, the verifier forgets its type). */
		__u64 ring_nr = 0;

		bpf_probe_read_kernel(&ring_nr, sizeof(ring_nr), &key);
		pbuf_on_cqe(ring_nr, (__u64)req, user_data, res, cflags);
	}
	if (req)
		ended = end_request((__u64)req, key, res, cflags, UC_DONE_CQE);
	ri = bpf_map_lookup_elem(&rings, &key);
	if (!ri) {
		/* A ring not seen yet: if it is a followed process's, it
		 * was made before the attach and this request was in flight
		 * then (counted: an end without a submission is no error).
		 * The lookup is paid only off the followed rings' path. */
		__u32 tgid;
		struct uc_tracked *t;

		if (req && ended < 0 && (t = current_tracked(&tgid)))
			stat_inc(t->session, UC_STAT_ENDS_UNSEEN);
		return 0;
	}
	/* Its submission never seen: in flight when the process was
	 * attached (or not tracked: requests_untracked). */
	if (req && ended < 0)
		stat_inc(ri->session, UC_STAT_ENDS_UNSEEN);
	if (ended > 0 && (ended & INF_COUNTED)) {
		if (ended & INF_QUIET) {
			__sync_fetch_and_add(&ri->quiet_inflight, -1);
			__sync_fetch_and_add(&quiet_total, -1);
		}
		__sync_fetch_and_add(&ri->inflight, -1);
		if (ended & INF_HOLDS_MEM)
			__sync_fetch_and_add(&ri->mem_inflight, -1);
	}
	if (req) {
		/* The overflow cursor: where this flush has got to. */
		ri->ovf_cursor = (__u64)req;
		ri->ovf_batch = typed ? batch :
			(__u64)BPF_CORE_READ(ring, submit_state.compl_reqs.first);
		ri->freed++;
	}
	cfg = session_cfg(ri->session);
	if (cfg && cfg->reap_lag_ns) {
		/* The CQE just filled sits at cached_cq_tail - 1. */
		__u32 pos = (typed ? ring->cached_cq_tail :
			     BPF_CORE_READ(ring, cached_cq_tail)) - 1;

		ri->post_ts[pos & (POST_TS_SLOTS - 1)] = lag_clock(cfg->reap_lag_ns);
		ri->post_pos[pos & (POST_TS_SLOTS - 1)] = pos;
		ri->post_op[pos & (POST_TS_SLOTS - 1)] = ended > 0 ? (ended >> 16) & 0xff : 0;
	}
	return 0;
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(uc_complete, struct io_ring_ctx *ring, void *req,
	     struct uc_cqe *cqe)
{
	return on_complete(ring, req, cqe->user_data, cqe->res, cqe->flags, true);
}

/* Before v6.13 (the CQE itself became the argument): its fields, and
 * the ring as a void * (read through CO-RE, not loaded directly). */
SEC("tp_btf/io_uring_complete")
int BPF_PROG(uc_complete_fields, void *ring, void *req, __u64 user_data,
	     int res, unsigned int cflags, __u64 extra1, __u64 extra2)
{
	return on_complete(ring, req, user_data, res, cflags, false);
}

/* Is @req the request whose CQE (@user_data) is overflowing on @ring?
 * CQE-skipping requests met on the way have finished: they are ended. */
struct ovf_match {
	struct io_wq_work_node *node;	/* candidate */
	__u64 ring;
	__u64 user_data;
	__u64 found;			/* the request, 0: not found */
};

static long ovf_step(__u64 i, struct ovf_match *m)
{
	struct io_wq_work_node *node = m->node;
	struct io_kiocb *req;
	__u64 flags;

	if (!node)
		return 1;
	req = comp_node_to_req(node);
	if ((__u64)BPF_CORE_READ(req, ctx) != m->ring)
		return 1;
	flags = req_flags(req);
	if (!(flags & UC_IOSQE_CQE_SKIP_SUCCESS)) {
		if (BPF_CORE_READ(req, cqe.user_data) == m->user_data)
			m->found = (__u64)req;
		return 1;
	}
	if (!(flags & reissue_flag))
		end_request((__u64)req, m->ring, 0, 0, UC_DONE_LISTED);
	m->node = UC_NEXT(node);
	return 0;
}

static __always_inline int match_overflow(__u64 ring_addr, struct ring_info *ri,
			      __u64 user_data)
{
	struct io_ring_ctx *ring = (struct io_ring_ctx *)ring_addr;
	struct ovf_match m = { .ring = ring_addr, .user_data = user_data };
	struct io_wq_work_node *first;
	struct io_kiocb *cur;

	if (!ring || !ri)
		return 0;
	first = BPF_CORE_READ(ring, submit_state.compl_reqs.first);
	cur = (struct io_kiocb *)ri->ovf_cursor;
	/* The batch being flushed is the one the cursor was set in: the
	 * request after it is next. Else this flush posted nothing yet. */
	if (cur && ri->ovf_batch == (__u64)first)
		m.node = BPF_CORE_READ(cur, comp_list.next);
	else
		m.node = first;
	bpf_loop(16, ovf_step, &m, 0);
	if (!m.found && m.node != first) {
		/* A stale cursor (a batch at the same address): from the top. */
		m.node = first;
		bpf_loop(16, ovf_step, &m, 0);
	}
	if (m.found) {
		ri->ovf_cursor = m.found;
		ri->ovf_batch = (__u64)first;
		/* Ended nothing: a request sharing the tag that had posted
		 * already (tags are often shared), not the overflowing one. */
		if (end_request(m.found, m.ring, 0, 0, UC_DONE_OVERFLOW) >= 0)
			return 0;
	}
	/* Its end is found at the next look at the free stack. */
	ri->ovf_unmatched++;
	__sync_fetch_and_add(&unmatched_total, 1);
	stat_inc(ri->session, UC_STAT_OVERFLOW_UNMATCHED);
	return 0;
}

/*
 * The CQ ring is full: the CQE goes to the overflow list, and nothing
 * names the request. It is the next request of the completion batch
 * being flushed after the last one seen (io_uring_complete set the
 * cursor), so each overflow costs a step or two, never a walk: a burst
 * of 64k overflowing completions once cost a walk each (a soft lockup).
 */
SEC("tp_btf/io_uring_cqe_overflow")
int BPF_PROG(uc_cqe_overflow, struct io_ring_ctx *ring, __u64 user_data,
	     __s32 res, __u32 cflags, void *ocqe)
{
	__u64 key = (__u64)ring;
	struct ring_info *ri = bpf_map_lookup_elem(&rings, &key);

	if (ri) {
		ri->freed++;
		match_overflow(key, ri, user_data);
	}
	return 0;
}
