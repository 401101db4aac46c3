// SPDX-License-Identifier: GPL-2.0
/*
 * uringcheck --trace / --events, kernel side: one record per io_uring
 * event of the followed processes (bpf/trace.h), in one ring buffer, for
 * the Perfetto timeline (trace/) and the event export.
 *
 *   io_uring_create               TR_RING
 *   io_uring_submit_req (_sqe)    TR_SUBMIT: the request and its SQE's fields
 *   io_uring_poll_arm             TR_POLL_ARM
 *   io_uring_queue_async_work     TR_PUNT
 *   io_uring_complete             TR_COMPLETE (req 0: a multishot CQE)
 *   sys_enter / sys_exit          TR_SYS_ENTER / TR_SYS_EXIT of io_uring_setup,
 *                                 io_uring_enter, io_uring_register, with the
 *                                 ring's SQ/CQ indexes at that moment
 *   sched_switch                  TR_THREAD: io-wq and SQPOLL threads on/off CPU
 *   sched_process_fork            children of a followed process are followed
 *                                 (bpf/follow.bpf.h, shared with the profile)
 *
 * Records never wake the reader (an interrupt in the traced thread per
 * record): user space reads the buffer every few milliseconds.
 *
 * A record that does not fit the buffer is counted by type (tr_lost) and
 * said in the trace and on the closing line. With --sample=N one request
 * in N is recorded, all of its records or none (the decision is kept in
 * a slot by the request's address).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "pidns.bpf.h"
#include "trace.h"
#include "io_uring_access.bpf.h"
#include "addr_keys.bpf.h"
#include "follow.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 sample_every = 1;		/* --sample */

#define NR_SETUP	425
#define NR_ENTER	426
#define NR_REGISTER	427
#define REQ_SLOTS	65536
#define RING_CACHE	1024

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 20);		/* set by user space */
} tr_rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TR__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} tr_lost SEC(".maps");

/* Is this ring a followed process's? A direct-mapped cache of verdicts
 * by ring address, refreshed at every ring creation. */
struct ring_verdict {
	__u64 ctx;
	__u32 ours;
	__u32 gen;			/* follow_gen when judged */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RING_CACHE);
	__type(key, __u32);
	__type(value, struct ring_verdict);
} tr_ring_cache SEC(".maps");

/* --sample: whether a request in flight was chosen */
struct req_choice {
	__u64 req;
	__u32 chosen;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, REQ_SLOTS);
	__type(key, __u32);
	__type(value, struct req_choice);
} tr_choices SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} tr_sample_count SEC(".maps");

static __always_inline void lost(__u32 type)
{
	__u64 *n = bpf_map_lookup_elem(&tr_lost, &type);

	if (n)
		(*n)++;
}

static __always_inline void *reserve(__u32 type, __u64 size)
{
	struct tr_hdr *h = bpf_ringbuf_reserve(&tr_rb, size, 0);
	__u64 id = current_pid_tgid();

	if (!h) {
		lost(type);
		return NULL;
	}
	h->type = type;
	h->cpu = bpf_get_smp_processor_id();
	h->pid = id >> 32;
	h->tid = (__u32)id;
	h->pad = 0;
	h->ts = bpf_ktime_get_ns();
	return h;
}

static __always_inline void set_verdict_gen(__u64 ctx, __u32 ours, __u32 gen)
{
	__u32 i = addr_hash(ctx, 10);
	struct ring_verdict *v = bpf_map_lookup_elem(&tr_ring_cache, &i);

	if (v) {
		v->ctx = ctx;
		v->ours = ours;
		v->gen = gen;
	}
}

static __always_inline void set_verdict(__u64 ctx, __u32 ours)
{
	set_verdict_gen(ctx, ours, follow_gen);
}

/* A ring not seen created is judged by who uses it first. */
static __always_inline bool ring_ours(__u64 ctx)
{
	__u32 i = addr_hash(ctx, 10), ours, gen = follow_gen;	/* read first */
	struct ring_verdict *v = bpf_map_lookup_elem(&tr_ring_cache, &i);

	if (v && v->ctx == ctx && (v->ours || v->gen == gen))
		return v->ours;
	ours = followed(current_pid_tgid() >> 32);
	set_verdict_gen(ctx, ours, gen);
	return ours;
}

/* ---- processes and rings ------------------------------------------------- */

SEC("tp_btf/sched_process_fork")
int BPF_PROG(tr_fork, struct task_struct *parent, struct task_struct *child)
{
	follow_child(parent, child, NULL);
	return 0;
}

SEC("tp_btf/io_uring_create")
int BPF_PROG(tr_ring_create, int fd, void *rctx, __u32 sq_entries,
	     __u32 cq_entries, __u32 flags)
{
	__u64 ring, unused;
	struct tr_ring *r;
	__u32 ours;

	if (as_numbers(rctx, 0, &ring, &unused))
		return 0;
	ours = followed(current_pid_tgid() >> 32);
	set_verdict(ring, ours);
	if (!ours || !(r = reserve(TR_RING, sizeof(*r))))
		return 0;
	r->ctx = ring;
	r->fd = fd;
	r->sq_entries = sq_entries;
	r->cq_entries = cq_entries;
	r->setup_flags = flags;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

/* ---- requests ---------------------------------------------------------- */

/* --sample: decided at submission, kept until the request's end. */
static __always_inline bool choose(__u64 req)
{
	__u32 zero = 0, i;
	struct req_choice *c;
	__u64 *n;
	bool pick;

	if (sample_every <= 1)
		return true;
	n = bpf_map_lookup_elem(&tr_sample_count, &zero);
	if (!n)
		return false;
	pick = (*n)++ % sample_every == 0;
	i = addr_hash(req, 16);
	c = bpf_map_lookup_elem(&tr_choices, &i);
	if (c) {
		c->req = req;
		c->chosen = pick;
	}
	return pick;
}

static __always_inline bool chosen(__u64 req)
{
	__u32 i = addr_hash(req, 16);
	struct req_choice *c;

	if (sample_every <= 1)
		return true;
	c = bpf_map_lookup_elem(&tr_choices, &i);
	return c && c->req == req && c->chosen;
}

static __always_inline int on_submit(struct io_kiocb *req)
{
	struct io_ring_ctx *ring = req->ctx;
	struct tr_submit *s;
	__u64 ctx, key, rflags;
	__u8 op;

	if (as_numbers(ring, req, &ctx, &key) || !ring_ours(ctx) || !choose(key))
		return 0;
	s = reserve(TR_SUBMIT, sizeof(*s));
	if (!s)
		return 0;
	rflags = req_flags(req);
	op = req->opcode;
	s->req = key;
	s->ctx = ctx;
	s->user_data = req->cqe.user_data;
	s->fd = req->cqe.fd;
	s->opcode = op;
	s->sqe_flags = rflags & 0xff;
	s->buf_index = req->buf_index;
	s->sqpoll = !!(bpf_get_current_task_btf()->flags & UC_PF_IO_WORKER);
	s->link = (rflags & (UC_IOSQE_IO_LINK | UC_IOSQE_IO_HARDLINK)) ||
		  ring->submit_state.link.head;
	s->ioprio = 0;
	s->personality = 0;
	s->addr = 0;
	s->off = 0;
	s->len = 0;
	__builtin_memset(s->pad, 0, sizeof(s->pad));
	/* READ/WRITE family: the prep handler's io_rw holds them */
	if (op == 1 || op == 2 || op == 4 || op == 5 || op == 22 || op == 23) {
		struct io_rw *rw = req_rw(req);

		s->addr = BPF_CORE_READ(rw, addr);
		s->len = BPF_CORE_READ(rw, len);
		s->off = BPF_CORE_READ(rw, kiocb.ki_pos);
		s->ioprio = BPF_CORE_READ(rw, kiocb.ki_ioprio);
	} else if (op == 9 || op == 10 || op == 26 || op == 27) {
		struct io_sr_msg *sr = req_sr(req);

		s->len = BPF_CORE_READ(sr, len);
		s->addr = (__u64)BPF_CORE_READ(sr, buf);
	}
	bpf_ringbuf_submit(s, BPF_RB_NO_WAKEUP);
	return 0;
}

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(tr_submit, struct io_kiocb *req)
{
	return on_submit(req);
}

/* Before v6.4 (5a6d37e7 "io_uring: rename io_uring_submit_sqe"). */
SEC("tp_btf/io_uring_submit_sqe")
int BPF_PROG(tr_submit_sqe, struct io_kiocb *req, bool force_nonblock)
{
	return on_submit(req);
}

static __always_inline void mark(struct io_kiocb *req, __u32 type)
{
	__u64 ctx, key;
	struct tr_mark *m;

	if (as_numbers(req->ctx, req, &ctx, &key) || !ring_ours(ctx) || !chosen(key))
		return;
	m = reserve(type, sizeof(*m));
	if (!m)
		return;
	m->req = key;
	m->ctx = ctx;
	bpf_ringbuf_submit(m, BPF_RB_NO_WAKEUP);
}

/* v5.19: these two take the request itself. */
SEC("tp_btf/io_uring_poll_arm")
int BPF_PROG(tr_poll_arm, struct io_kiocb *req, int mask, int events)
{
	mark(req, TR_POLL_ARM);
	return 0;
}

SEC("tp_btf/io_uring_queue_async_work")
int BPF_PROG(tr_async_work, struct io_kiocb *req, int rw)
{
	mark(req, TR_PUNT);
	return 0;
}

static __always_inline int on_complete(void *ring_ptr, void *req_ptr, __u64 user_data,
				       __s32 res, __u32 cflags)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct tr_complete *c;
	__u64 ctx, req;

	if (as_numbers(ring_ptr, req_ptr, &ctx, &req) || !ring_ours(ctx))
		return 0;
	/* an auxiliary CQE is kept only when every request is */
	if (req ? !chosen(req) : sample_every > 1)
		return 0;
	c = reserve(TR_COMPLETE, sizeof(*c));
	if (!c)
		return 0;
	c->req = req;
	c->ctx = ctx;
	c->user_data = user_data;
	c->res = res;
	c->cflags = cflags;
	/* the CQE just filled sits at cached_cq_tail - 1 */
	c->cq_pos = BPF_CORE_READ((struct io_ring_ctx *)ring_ptr, cached_cq_tail) - 1;
	c->opcode = req ? BPF_CORE_READ((struct io_kiocb *)req_ptr, opcode) : 0xff;
	c->in_worker = (task->flags & UC_PF_IO_WORKER) && io_thread_is_wq_worker(task);
	c->pad[0] = c->pad[1] = 0;
	bpf_ringbuf_submit(c, BPF_RB_NO_WAKEUP);
	return 0;
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(tr_complete, void *rctx, void *req, struct io_uring_cqe *cqe)
{
	return on_complete(rctx, req, cqe->user_data, cqe->res, cqe->flags);
}

/* Before v6.13 (the CQE itself became the argument): its fields. */
SEC("tp_btf/io_uring_complete")
int BPF_PROG(tr_complete_fields, void *rctx, void *req, __u64 user_data,
	     int res, unsigned int cflags, __u64 extra1, __u64 extra2)
{
	return on_complete(rctx, req, user_data, res, cflags);
}

/* ---- system calls ----------------------------------------------------- */

#if defined(__TARGET_ARCH_x86)
#define SC_ARG(r, n)	((n) == 0 ? (r)->di : (n) == 1 ? (r)->si : (n) == 2 ? (r)->dx : (r)->r10)
#define SC_NR(r)	((r)->orig_ax)
#else
#define SC_ARG(r, n)	((n) == 0 ? PT_REGS_PARM1_CORE_SYSCALL(r) : (n) == 1 ? \
			 PT_REGS_PARM2_CORE_SYSCALL(r) : (n) == 2 ? \
			 PT_REGS_PARM3_CORE_SYSCALL(r) : PT_REGS_PARM4_CORE_SYSCALL(r))
#define SC_NR(r)	(-1)
#endif

/* The ring's indexes as they are now: what the program has consumed
 * (cq.head) and what the kernel has posted (cq.tail). */
static __always_inline void ring_indexes(__u64 ctx, struct tr_syscall *s)
{
	struct io_rings *rings;

	if (!ctx)
		return;
	rings = BPF_CORE_READ((struct io_ring_ctx *)ctx, rings);
	if (!rings)
		return;
	s->sq_head = BPF_CORE_READ(rings, sq.head);
	s->sq_tail = BPF_CORE_READ(rings, sq.tail);
	s->cq_head = BPF_CORE_READ(rings, cq.head);
	s->cq_tail = BPF_CORE_READ(rings, cq.tail);
}

/* The system call under way per thread: its ring and arguments, for the
 * exit record. */
struct call {
	__u64 ctx;
	__s32 fd;
	__u32 nr;
	__u64 arg[3];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct call);
} tr_calls SEC(".maps");

static __always_inline void sys_record(__u32 type, struct call *c, __s64 ret)
{
	struct tr_syscall *s = reserve(type, sizeof(*s));

	if (!s)
		return;
	s->ctx = c->ctx;
	s->nr = c->nr;
	s->fd = c->fd;
	s->arg[0] = c->arg[0];
	s->arg[1] = c->arg[1];
	s->arg[2] = c->arg[2];
	s->ret = ret;
	s->sq_head = s->sq_tail = s->cq_head = s->cq_tail = 0;
	ring_indexes(c->ctx, s);
	bpf_ringbuf_submit(s, BPF_RB_NO_WAKEUP);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(tr_sys_enter, struct pt_regs *regs, long id)
{
	__u32 tid;
	struct call c = {};

	if (id != NR_ENTER && id != NR_REGISTER && id != NR_SETUP)
		return 0;
	if (!followed(current_pid_tgid() >> 32))
		return 0;
	tid = (__u32)bpf_get_current_pid_tgid();
	c.nr = id;
	c.arg[0] = SC_ARG(regs, 1);
	c.arg[1] = SC_ARG(regs, 2);
	c.arg[2] = SC_ARG(regs, 3);
	if (id == NR_SETUP) {
		c.fd = -1;
		c.arg[0] = SC_ARG(regs, 0);	/* entries */
	} else {
		c.fd = SC_ARG(regs, 0);
		c.ctx = enter_ring(c.fd, id == NR_ENTER ? c.arg[2] : 0);
	}
	bpf_map_update_elem(&tr_calls, &tid, &c, BPF_ANY);
	sys_record(TR_SYS_ENTER, &c, 0);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(tr_sys_exit, struct pt_regs *regs, long ret)
{
	__u32 tid;
	struct call *c;
	long nr = SC_NR(regs);

	if (nr >= 0 && nr != NR_ENTER && nr != NR_REGISTER && nr != NR_SETUP)
		return 0;
	tid = (__u32)bpf_get_current_pid_tgid();
	c = bpf_map_lookup_elem(&tr_calls, &tid);
	if (!c)
		return 0;
	if (c->nr == NR_SETUP && ret >= 0) {
		/* the new ring: its descriptor is the result */
		c->fd = ret;
		c->ctx = enter_ring(ret, 0);
	}
	sys_record(TR_SYS_EXIT, c, ret);
	bpf_map_delete_elem(&tr_calls, &tid);
	return 0;
}

/* ---- io-wq and SQPOLL threads -------------------------------------------- */

static __always_inline void thread_record(struct task_struct *t, __u8 on)
{
	struct tr_thread *r;

	if (!followed(task_tgid_in_ns(t)))
		return;
	r = bpf_ringbuf_reserve(&tr_rb, sizeof(*r), 0);
	if (!r) {
		lost(TR_THREAD);
		return;
	}
	r->h.type = TR_THREAD;
	r->h.cpu = bpf_get_smp_processor_id();
	r->h.pid = task_tgid_in_ns(t);
	r->h.tid = task_pid_in_ns(t);
	r->h.pad = 0;
	r->h.ts = bpf_ktime_get_ns();
	r->on = on;
	bpf_probe_read_kernel(r->comm, sizeof(r->comm), t->comm);
	r->sqpoll = r->comm[4] == 's';
	__builtin_memset(r->pad, 0, sizeof(r->pad));
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(tr_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	if (prev->flags & UC_PF_IO_WORKER)
		thread_record(prev, 0);
	if (next->flags & UC_PF_IO_WORKER)
		thread_record(next, 1);
	return 0;
}
