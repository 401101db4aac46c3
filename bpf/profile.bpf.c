// SPDX-License-Identifier: GPL-2.0
/*
 * uringcheck --profile, kernel side: fold every io_uring request of the
 * followed processes into per-ring, per-opcode tables (bpf/profile.h).
 * Nothing is sent per event; user space reads the tables.
 *
 * Separate from the checker's programs (bpf/uringcheck.bpf.c) on purpose:
 * the check mode keeps every in-flight request with its memory ranges and
 * sends records, which is what makes it a debugging tier. This object
 * only counts, and every hot-path step is an array access (inlined by the
 * verifier) rather than a hash lookup:
 *
 *   io_uring_submit_req     ring found through a direct-mapped cache of
 *                           ring addresses; the request's slot (by its
 *                           address) gets its start time and opcode
 *   io_uring_complete       the slot gives latency, path and opcode
 *   io_uring_poll_arm       marks the slot: poll-armed path
 *   io_uring_queue_async_work   marks the slot: io-wq punt
 *   io_uring_cqe_overflow, io_uring_cqring_wait, io_uring_create
 *   sys_enter               io_uring_enter batching; io_uring_register's
 *                           start (the syscall number is the first test)
 *   io_uring_register       its end: the registration's latency
 *   sched_switch            SQPOLL and io-wq threads' time on CPU (the
 *                           PF_IO_WORKER flag is the first test)
 *   sched_process_fork      children of a followed process are followed
 *                           (bpf/follow.bpf.h, shared with the trace)
 *
 * Only tracepoints (tp_btf), like the checker: kprobes may be missing and
 * fentry refused. Kernel changes are handled by program variants chosen
 * in user space from the kernel's BTF (load/variants.def).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "pidns.bpf.h"
#include "profile.h"
#include "io_uring_access.bpf.h"
#include "addr_keys.bpf.h"
#include "follow.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space before load. */
const volatile __u32 max_rings = 32;		/* --profile-rings */
/* --profile-sample=N (a power of two): time every request up to
 * sample_warmup per CPU, ring and opcode, then one in N. */
const volatile __u64 sample_mask = 15;
const volatile __u64 sample_warmup = 1024;
/* io_ring_exit_work's address (/proc/kallsyms), 0: unknown, then a slot
 * is never freed (the rings' teardown is seen through that work item). */
const volatile __u64 exit_work_fn = 0;

/* low io_kiocb flag bits mirror IOSQE_* (io_uring_types.h) */
#define PF_IOSQE_ASYNC		(1u << 4)
#define PF_IOSQE_CQE_SKIP	(1u << 6)
/* uapi: IORING_ENTER_*, IORING_CQE_F_MORE */
#define PF_ENTER_GETEVENTS	(1u << 0)
#define PF_ENTER_SQ_WAKEUP	(1u << 1)
/* the io_uring system calls have one number on every architecture */
#define PF_NR_SETUP		425
#define PF_NR_ENTER		426
#define PF_NR_REGISTER		427

/* request slot flags */
#define RQ_POLLED	0x01
#define RQ_PUNTED	0x02
#define RQ_FORCED	0x04
#define RQ_SKIP		0x08		/* CQE_SKIP_SUCCESS: may end unseen */
#define RQ_WRITE	0x10		/* judged for short writes */
#define RQ_CHAIN	0x20		/* in a link chain */
#define RQ_SAMPLED	0x40		/* timed as one of every sample_mask + 1 */

struct pf_req {
	__u64 req;			/* the io_kiocb, 0: free */
	__u64 prev;			/* the member before it in its link
					 * chain, 0: none */
	__u64 ts;
	__u32 tag;			/* a chain member's random tag, and its */
	__u32 prev_tag;			/* predecessor's: an object the kernel
					 * reused since is not that member */
	__u32 len;
	__u16 ring;
	__u8 opcode;
	__u8 flags;
};

struct ring_cache_ent {
	__u64 ctx;
	__u32 slot;			/* PF_NO_RING: not profiled */
	__u32 gen;			/* follow_gen when judged */
};

/* Every ring profiled: address -> slot (the cache's backing store). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u32);
} pf_rings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PF_RING_CACHE);
	__type(key, __u32);
	__type(value, struct ring_cache_ent);
} pf_ring_cache SEC(".maps");

/* max_entries: --profile-rings, set before load */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 32);
	__type(key, __u32);
	__type(value, struct pf_ring_meta);
} pf_ring_meta SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 32);
	__type(key, __u32);
	__type(value, struct pf_ring_stats);
} pf_ring_stats SEC(".maps");

/* [slot * PF_MAX_OPS + opcode]; max_entries set with the rings */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 32 * PF_MAX_OPS);
	__type(key, __u32);
	__type(value, struct pf_op_stats);
} pf_op_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PF_REQ_SLOTS);
	__type(key, __u32);
	__type(value, struct pf_req);
} pf_reqs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct pf_err_key);
	__type(value, __u64);
} pf_errors SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);		/* tgid */
	__type(value, struct pf_proc);
} pf_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);		/* tid */
	__type(value, struct pf_thread);
} pf_threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PF_STAT__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} pf_stats SEC(".maps");

/* An io_uring_register call under way, by thread (for its latency). */
struct pf_call {
	__u64 ts;
	__u32 ring;			/* slot */
	__u32 opcode;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);		/* tid */
	__type(value, struct pf_call);
} pf_calls SEC(".maps");

/* io_uring_enter's descriptor -> ring slot, direct-mapped by (tgid, fd):
 * filled when a ring is created (its fd is known then) or resolved once
 * through the task's file table, so an enter costs one array access. */
struct fd_cache_ent {
	__u64 key;			/* tgid << 32 | fd (| bit 31: registered) */
	__u32 slot;
	__u32 gen;			/* follow_gen when judged */
	__u32 serial;			/* the slot's ring then (slots are reused) */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PF_RING_CACHE);
	__type(key, __u32);
	__type(value, struct fd_cache_ent);
} pf_fd_cache SEC(".maps");

__u32 next_ring_slot;
__u32 ring_serial;
/* notes that did not fit in pf_notify: user space then looks at every
 * slot rather than trusting the notes */
__u32 notes_lost;

/* Slots of closed rings whose figures user space has collected and
 * zeroed, ready for the next ring (pushed by user space only). */
struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 32);	/* --profile-rings, set before load */
	__type(value, __u32);
} pf_free_slots SEC(".maps");

/* Wakes user space at once: a ring closed, or one went unprofiled. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} pf_notify SEC(".maps");

static __always_inline void stat_inc(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&pf_stats, &which);

	if (v)
		(*v)++;
}

static __always_inline void notify(__u32 kind, __u32 slot)
{
	struct pf_note n = { .kind = kind, .slot = slot };

	if (bpf_ringbuf_output(&pf_notify, &n, sizeof(n), 0))
		__sync_fetch_and_add(&notes_lost, 1);
}

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8)  { v >>= 8;  r += 8; }
	if (v >> 4)  { v >>= 4;  r += 4; }
	if (v >> 2)  { v >>= 2;  r += 2; }
	if (v >> 1)  { r += 1; }
	return r;
}

static __always_inline void cache_put_gen(__u64 ctx, __u32 slot, __u32 gen)
{
	__u32 i = addr_hash(ctx, 10);
	struct ring_cache_ent *c = bpf_map_lookup_elem(&pf_ring_cache, &i);

	if (c) {
		c->ctx = ctx;
		c->slot = slot;
		c->gen = gen;
	}
}

static __always_inline void cache_put(__u64 ctx, __u32 slot)
{
	cache_put_gen(ctx, slot, follow_gen);
}

/* The serial of the ring in @slot, 0 once it has closed. */
static __always_inline __u32 slot_serial(__u32 slot)
{
	struct pf_ring_meta *m = bpf_map_lookup_elem(&pf_ring_meta, &slot);

	return m && !m->closed_ns ? m->serial : 0;
}

static __always_inline void fd_cache_put_gen(__u64 key, __u32 slot, __u32 gen)
{
	__u32 i = addr_hash(key, 10);
	struct fd_cache_ent *c = bpf_map_lookup_elem(&pf_fd_cache, &i);

	if (c) {
		c->key = key;
		c->slot = slot;
		c->gen = gen;
		c->serial = slot < PF_RING_FULL ? slot_serial(slot) : 0;
	}
}

static __always_inline void fd_cache_put(__u64 key, __u32 slot)
{
	fd_cache_put_gen(key, slot, follow_gen);
}

/* A slot for ring @ctx of process @tgid: a closed ring's, collected by
 * user space, else a never used one; PF_RING_FULL when every slot holds a
 * ring not yet collected (counted, and user space told at once: the
 * report says its tables were truncated). */
static __always_inline __u32 ring_add(__u64 ctx, __u32 tgid, int fd,
				      __u32 flags, __u32 sq, __u32 cq, __u64 now)
{
	struct pf_ring_meta *m;
	__u32 slot;

	if (bpf_map_pop_elem(&pf_free_slots, &slot)) {
		slot = __sync_fetch_and_add(&next_ring_slot, 1);
		if (slot >= max_rings)
			next_ring_slot = max_rings;	/* no wrap, however many */
	}
	if (slot >= max_rings) {
		stat_inc(PF_STAT_RINGS_UNPROFILED);
		notify(PF_NOTE_UNPROFILED, 0);
		slot = PF_RING_FULL;
	} else if ((m = bpf_map_lookup_elem(&pf_ring_meta, &slot))) {
		m->tgid = tgid;
		m->fd = fd;
		m->setup_flags = flags;
		m->sq_entries = sq;
		m->cq_entries = cq;
		m->created_ns = now;
		/* the process's name, not the thread's: a ring first seen
		 * used by its SQPOLL thread would be named "iou-sqp-N" */
		BPF_CORE_READ_STR_INTO(&m->comm, bpf_get_current_task_btf(), group_leader, comm);
		m->closed_ns = 0;
		m->serial = __sync_fetch_and_add(&ring_serial, 1) + 1;
		m->ctx = ctx;
	}
	bpf_map_update_elem(&pf_rings, &ctx, &slot, BPF_ANY);
	cache_put(ctx, slot);
	if (fd >= 0)
		fd_cache_put((__u64)tgid << 32 | (__u32)fd, slot);
	return slot;
}

/* The slot of ring @ctx: the cache, then the table; a ring not seen
 * created (the profile attached later, or it was inherited) is added
 * when a followed process uses it. PF_NO_RING: not a followed process's;
 * PF_RING_FULL: one, beyond the table's size. */
static __always_inline __u32 ring_slot(__u64 ctx)
{
	__u32 i = addr_hash(ctx, 10), *s, tgid;
	struct ring_cache_ent *c = bpf_map_lookup_elem(&pf_ring_cache, &i);

	__u32 gen = follow_gen;		/* read before judging */

	if (c && c->ctx == ctx && (c->slot != PF_NO_RING || c->gen == gen))
		return c->slot;
	s = bpf_map_lookup_elem(&pf_rings, &ctx);
	if (s) {
		cache_put(ctx, *s);
		return *s;
	}
	tgid = current_pid_tgid() >> 32;
	if (!followed(tgid)) {
		/* not ours, until a ring is created there or a process is
		 * followed */
		cache_put_gen(ctx, PF_NO_RING, gen);
		return PF_NO_RING;
	}
	/* its setup flags from the ring itself (SQPOLL matters) */
	return ring_add(ctx, tgid, -1, BPF_CORE_READ((struct io_ring_ctx *)ctx, flags),
			0, 0, 0);
}

static __always_inline struct pf_op_stats *op_stats(__u32 ring, __u32 op)
{
	__u32 i;

	if (op >= PF_MAX_OPS)
		op = PF_MAX_OPS - 1;
	i = ring * PF_MAX_OPS + op;
	return bpf_map_lookup_elem(&pf_op_stats, &i);
}

static __always_inline struct pf_ring_stats *ring_stats(__u32 ring)
{
	return bpf_map_lookup_elem(&pf_ring_stats, &ring);
}

/* ---- processes -------------------------------------------------------- */

static __always_inline void procs_full(void)
{
	stat_inc(PF_STAT_PROCS_FULL);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(pf_fork, struct task_struct *parent, struct task_struct *child)
{
	follow_child(parent, child, procs_full);
	return 0;
}

/* ---- rings ------------------------------------------------------------ */

SEC("tp_btf/io_uring_create")
int BPF_PROG(pf_ring_create, int fd, void *rctx, __u32 sq_entries,
	     __u32 cq_entries, __u32 flags)
{
	__u32 tgid = current_pid_tgid() >> 32;
	__u64 a, unused;

	if (as_numbers(rctx, 0, &a, &unused))
		return 0;
	/* A new ring at an address a dead one had: the cache must not keep
	 * the old verdict, whoever the new ring belongs to. */
	if (!followed(tgid)) {
		cache_put(a, PF_NO_RING);
		bpf_map_delete_elem(&pf_rings, &a);
		return 0;
	}
	ring_add(a, tgid, fd, flags, sq_entries, cq_entries,
		 bpf_ktime_get_ns());
	return 0;
}

/* A ring's context is freed at the end of io_ring_exit_work, the work
 * item its last close queues (after every request of the ring has ended
 * and the cancellations have posted their CQEs): nothing of that ring is
 * seen after. Its slot is marked closed and user space told; user space
 * collects the figures, zeroes the slot and hands it back through
 * pf_free_slots. The work item is inside the freed context: only its
 * address is used. workqueue_execute_end has had the function since
 * v5.7; without exit_work_fn no slot is freed (and the first ring left
 * out says so). */
SEC("raw_tp/workqueue_execute_end")	/* tp_btf refuses a function pointer */
int BPF_PROG(pf_ring_gone, void *work, void *function)
{
	struct ring_cache_ent *c;
	struct pf_ring_meta *m;
	__u64 ring;
	__u32 *s, slot, i;

	/* A raw_tp's arguments are numbers already: nothing to launder.
	 * This one runs in softirq too (BH workqueues, v6.9), on top of a
	 * program interrupted on this CPU: it must not touch a per-CPU
	 * scratch slot another program may be using (addr_keys.bpf.h). */
	if (!exit_work_fn || (__u64)function != exit_work_fn)
		return 0;
	ring = (__u64)exit_work_to_ctx(work);
	s = bpf_map_lookup_elem(&pf_rings, &ring);
	if (!s)
		return 0;
	slot = *s;
	bpf_map_delete_elem(&pf_rings, &ring);
	/* a later ring at this address is judged afresh (io_uring_create
	 * overwrites the entry anyway) */
	i = addr_hash(ring, 10);
	c = bpf_map_lookup_elem(&pf_ring_cache, &i);
	if (c && c->ctx == ring)
		c->ctx = 0;
	if (slot >= max_rings)
		return 0;		/* was never profiled */
	m = bpf_map_lookup_elem(&pf_ring_meta, &slot);
	if (!m || m->ctx != ring)
		return 0;
	m->closed_ns = bpf_ktime_get_ns();
	notify(PF_NOTE_CLOSED, slot);
	return 0;
}

/* ---- requests ---------------------------------------------------------- */

static __always_inline bool is_data_op(__u32 op)
{
	/* READV WRITEV READ_FIXED WRITE_FIXED SENDMSG RECVMSG READ WRITE
	 * SEND RECV SPLICE TEE SEND_ZC SENDMSG_ZC READ_MULTISHOT
	 * RECV_ZC READV_FIXED WRITEV_FIXED (uapi numbers) */
	const __u64 mask = (1ull << 1) | (1ull << 2) | (1ull << 4) | (1ull << 5) |
		(1ull << 9) | (1ull << 10) | (1ull << 22) | (1ull << 23) |
		(1ull << 26) | (1ull << 27) | (1ull << 30) | (1ull << 33) |
		(1ull << 47) | (1ull << 48) | (1ull << 49) | (1ull << 58) |
		(1ull << 60) | (1ull << 61);

	return op < 64 && (mask >> op) & 1;
}

/* WRITE, WRITE_FIXED, SEND: one buffer whose length is known at submit */
static __always_inline bool is_plain_write(__u32 op)
{
	return op == 23 || op == 5 || op == 26;
}

static __always_inline void count_silent_end(struct pf_req *r, __s32 res, bool known_res);

/* The slot that holds request @key (its own or its neighbour), or NULL. */
static __always_inline struct pf_req *req_slot(__u64 key)
{
	__u32 i = addr_hash(key, 16);
	struct pf_req *r = bpf_map_lookup_elem(&pf_reqs, &i);

	if (r && r->req != key) {
		i ^= 1;
		r = bpf_map_lookup_elem(&pf_reqs, &i);
	}
	return r && r->req == key ? r : NULL;
}

static __always_inline int on_submit(struct io_kiocb *req)
{
	__u64 ctx, key, rflags, n;
	__u32 ring, i, op;
	struct pf_op_stats *st;
	struct pf_req *r;

	if (as_numbers(req->ctx, req, &ctx, &key))
		return 0;
	ring = ring_slot(ctx);
	if (ring >= PF_RING_FULL) {
		if (ring == PF_RING_FULL)
			stat_inc(PF_STAT_REQS_UNPROFILED);
		return 0;
	}
	op = req->opcode;
	st = op_stats(ring, op);
	if (!st)
		return 0;
	n = ++st->submits;

	/* Two slots per address (its own and its neighbour): requests in
	 * flight together rarely find both taken. The request object's own
	 * earlier use first, wherever it sits: a CQE-skipping request there
	 * ended (below). A CQE-skipping request holds its slot like any
	 * other: its end is found (count_silent_end), so taking its slot
	 * would lose a request still counted in flight. */
	i = addr_hash(key, 16);
	r = bpf_map_lookup_elem(&pf_reqs, &i);
	if (!r)
		return 0;
	if (r->req != key) {
		__u32 j = i ^ 1;
		struct pf_req *r2 = bpf_map_lookup_elem(&pf_reqs, &j);

		if (r2 && (r2->req == key || (r->req && !r2->req))) {
			r = r2;
		} else if (r->req) {
			/* Both taken by requests that have not ended: this
			 * one's predecessor loses its path and timing (and,
			 * posting no CQE, its end). */
			struct pf_ring_stats *rs = ring_stats(ring);

			if (rs)
				rs->evicted++;
		}
	}
	/* The same request object again: the kernel reuses one only after
	 * freeing it, so a CQE-skipping request still here ended without a
	 * CQE (a failure would have posted one). */
	if (r->req == key && (r->flags & RQ_SKIP))
		count_silent_end(r, 0, false);
	/* The low flag bits mirror IOSQE_* on every kernel; a direct load,
	 * its size relocated by CO-RE (32 bits before v6.10, then 64). */
	rflags = req->flags;
	r->req = key;
	/* The kernel appends to the chain after this hook: a chain being
	 * built means this request follows its last member. */
	r->prev = (__u64)BPF_CORE_READ(req->ctx, submit_state.link.head) ?
		  (__u64)BPF_CORE_READ(req->ctx, submit_state.link.last) : 0;
	r->tag = 0;
	r->prev_tag = 0;
	if (r->prev) {
		struct pf_req *p = req_slot(r->prev);

		if (p)
			r->prev_tag = p->tag;
		else
			r->prev = 0;	/* not ours: nothing to end */
	}
	if (r->prev || (req->flags & (UC_IOSQE_IO_LINK | UC_IOSQE_IO_HARDLINK)))
		r->tag = bpf_get_prandom_u32() | 1;
	r->ring = ring;
	r->opcode = op;
	/* Reading the clock costs as much as the rest of this program, so
	 * after the first requests only one in sample_mask + 1 is timed (per
	 * CPU, ring and opcode); every one is still counted. A sampled one
	 * stands for sample_mask + 1 requests in the latency figures, a
	 * warm-up one for itself (on_complete): each request then weighs
	 * the inverse of its chance to be timed, so the start-up burst that
	 * the warm-up times whole does not outweigh the rest of a short run. */
	r->flags = 0;
	if (n <= sample_warmup) {
		r->ts = bpf_ktime_get_ns();
	} else if (!(n & sample_mask)) {
		r->ts = bpf_ktime_get_ns();
		r->flags = RQ_SAMPLED;
	} else {
		r->ts = 0;
	}
	if (rflags & PF_IOSQE_ASYNC)
		r->flags |= RQ_FORCED;
	if (rflags & PF_IOSQE_CQE_SKIP)
		r->flags |= RQ_SKIP;
	if ((rflags & (UC_IOSQE_IO_LINK | UC_IOSQE_IO_HARDLINK)) || r->prev)
		r->flags |= RQ_CHAIN;
	if (is_plain_write(op)) {
		r->flags |= RQ_WRITE;
		/* the length the prep handler stored */
		if (op == 26)
			r->len = BPF_CORE_READ(req_sr(req), len);
		else
			r->len = BPF_CORE_READ(req_rw(req), len);
	}
	return 0;
}

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(pf_submit, struct io_kiocb *req)
{
	return on_submit(req);
}

/* Before v6.4 (5a6d37e7 "io_uring: rename io_uring_submit_sqe"). */
SEC("tp_btf/io_uring_submit_sqe")
int BPF_PROG(pf_submit_sqe, struct io_kiocb *req, bool force_nonblock)
{
	return on_submit(req);
}

static __always_inline void mark(void *req, __u8 bit)
{
	__u64 key, unused;
	struct pf_req *r;
	__u32 i;

	if (as_numbers(req, 0, &key, &unused))
		return;
	i = addr_hash(key, 16);
	r = bpf_map_lookup_elem(&pf_reqs, &i);
	if (r && r->req != key) {
		i ^= 1;
		r = bpf_map_lookup_elem(&pf_reqs, &i);
	}
	if (r && r->req == key)
		r->flags |= bit;
}

/* v5.19 (ab1c84d855cf "io_uring: make io_uring_poll_arm tracepoint take
 * io_kiocb"): the request itself; before, ctx/req/opcode/... */
SEC("tp_btf/io_uring_poll_arm")
int BPF_PROG(pf_poll_arm, struct io_kiocb *req, int mask, int events)
{
	mark(req, RQ_POLLED);
	return 0;
}

/* v5.19 likewise for io_uring_queue_async_work(req, rw). */
SEC("tp_btf/io_uring_queue_async_work")
int BPF_PROG(pf_async_work, struct io_kiocb *req, int rw)
{
	mark(req, RQ_PUNTED);
	return 0;
}

static __always_inline void count_error(__u32 ring, __u32 op, __s32 res)
{
	struct pf_err_key k = { .ring = ring, .opcode = op, .err = -res };
	__u64 one = 1, *n = bpf_map_lookup_elem(&pf_errors, &k);

	if (n)
		__sync_fetch_and_add(n, 1);
	else if (bpf_map_update_elem(&pf_errors, &k, &one, BPF_NOEXIST) &&
		 (n = bpf_map_lookup_elem(&pf_errors, &k)))
		__sync_fetch_and_add(n, 1);	/* another CPU added it */
	else if (!n && bpf_map_lookup_elem(&pf_errors, &k) == NULL)
		stat_inc(PF_STAT_ERRNO_FULL);
}

/* A request's end, on its ring's row for its opcode: counts, bytes,
 * short writes and its path (@flags: RQ_*). */
static __always_inline void count_end(struct pf_op_stats *st, __u32 ring, __u32 op,
				      __u8 flags, __s32 res, bool known_res)
{
	st->completes++;
	if (res < 0) {
		st->errors++;
		count_error(ring, op, res);
	} else if (known_res && is_data_op(op)) {
		st->bytes += res;
	}
	if (flags & RQ_WRITE)
		st->short_writes++;
	/* A link chain's next member runs in the io-wq worker that ran the
	 * one before it, with no punt of its own: it ended there. */
	if ((flags & (RQ_CHAIN | RQ_PUNTED | RQ_POLLED)) == RQ_CHAIN &&
	    (bpf_get_current_task_btf()->flags & UC_PF_IO_WORKER))
		flags |= RQ_PUNTED;
	if (flags & RQ_PUNTED) {
		st->punted++;
		if (flags & RQ_FORCED)
			st->forced++;
	} else if (flags & RQ_POLLED) {
		st->polled++;
	}
}

/*
 * A CQE-skipping request that ended without its CQE (issue #30): counted
 * with what is known of it. @res is its result when it was read from the
 * request before the kernel reused it (a chain's member, met at a later
 * member's end), else unknown: its bytes are not counted (a success may
 * be short). Untimed: nothing marks when it ended. Frees its slot.
 */
static __always_inline void count_silent_end(struct pf_req *r, __s32 res, bool known_res)
{
	struct pf_op_stats *st = op_stats(r->ring, r->opcode);
	__u8 flags = r->flags;

	r->req = 0;
	if (!st)
		return;
	/* ended without a CQE: it succeeded, and was not short */
	count_end(st, r->ring, r->opcode, flags & ~(RQ_WRITE | RQ_CHAIN), res, known_res);
	st->silent++;
}

/* The members before a chain member that ended ended before it; those
 * still here posted no CQE. Their results are still in the request
 * objects: the kernel reuses them only at a later submission. */
struct chain_walk {
	__u64 key;
	__u32 tag;
};

static long chain_step(__u64 i, struct chain_walk *w)
{
	struct io_kiocb *req;
	struct pf_req *r;

	if (!w->key)
		return 1;
	r = req_slot(w->key);
	/* Ended already (with its CQE), or its object reused by a request
	 * that is not this chain's member. */
	if (!r || r->tag != w->tag || !(r->flags & RQ_SKIP))
		return 1;
	req = (struct io_kiocb *)r->req;
	w->key = r->prev;
	w->tag = r->prev_tag;
	count_silent_end(r, BPF_CORE_READ(req, cqe.res), true);
	return 0;
}

/* One step per member ended (a chain is at most one submission long). */
#define CHAIN_MAX 32768

static __always_inline int on_complete(void *ring_ptr, void *req_ptr, __s32 res,
				       __u32 cflags)
{
	struct pf_op_stats *st;
	struct pf_req *r;
	__u64 lat, ts, ctx, req, w;
	__u32 i, ring, op;
	__u8 flags;

	if (as_numbers(ring_ptr, req_ptr, &ctx, &req))
		return 0;

	if (!req) {
		/* An auxiliary CQE (multishot, msg_ring): not a request's
		 * end. Counted on its ring. */
		struct pf_ring_stats *rs;

		ring = ring_slot(ctx);
		if (ring < PF_RING_FULL && (rs = ring_stats(ring)))
			rs->aux_cqes++;
		return 0;
	}
	i = addr_hash(req, 16);
	r = bpf_map_lookup_elem(&pf_reqs, &i);
	if (r && r->req != req) {
		i ^= 1;
		r = bpf_map_lookup_elem(&pf_reqs, &i);
	}
	if (!r)
		return 0;
	if (r->req != req) {
		/* Submitted before the profile began, or its slot was
		 * taken: counted, without path or timing. */
		ring = ring_slot(ctx);
		if (ring >= PF_RING_FULL)
			return 0;
		op = BPF_CORE_READ((struct io_kiocb *)req_ptr, opcode);
		st = op_stats(ring, op);
		if (!st)
			return 0;
		st->completes++;
		st->unseen++;
		if (res < 0) {
			st->errors++;
			count_error(ring, op, res);
		} else if (is_data_op(op)) {
			st->bytes += res;
		}
		return 0;
	}
	ring = r->ring;
	op = r->opcode;
	flags = r->flags;
	ts = r->ts;
	if (!(flags & RQ_WRITE) || res < 0 || (__u32)res >= r->len)
		flags &= ~RQ_WRITE;
	r->req = 0;
	if (r->prev) {
		struct chain_walk w = { .key = r->prev, .tag = r->prev_tag };

		bpf_loop(CHAIN_MAX, chain_step, &w, 0);
	}
	st = op_stats(ring, op);
	if (!st)
		return 0;
	count_end(st, ring, op, flags, res, true);
	if (!ts)
		return 0;
	lat = bpf_ktime_get_ns() - ts;
	w = flags & RQ_SAMPLED ? sample_mask + 1 : 1;
	st->lat_sum_ns += lat * w;
	if (lat > st->lat_max_ns)
		st->lat_max_ns = lat;
	i = log2_u64(lat);
	if (i >= PF_LAT_BUCKETS)
		i = PF_LAT_BUCKETS - 1;
	st->lat_hist[i & (PF_LAT_BUCKETS - 1)] += w;
	return 0;
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(pf_complete, void *rctx, void *req, struct io_uring_cqe *cqe)
{
	return on_complete(rctx, req, cqe->res, cqe->flags);
}

/* Before v6.13 (the CQE itself became the argument): its fields. */
SEC("tp_btf/io_uring_complete")
int BPF_PROG(pf_complete_fields, void *rctx, void *req, __u64 user_data,
	     int res, unsigned int cflags, __u64 extra1, __u64 extra2)
{
	return on_complete(rctx, req, res, cflags);
}

/* v5.19 (cqe_overflow added). */
SEC("tp_btf/io_uring_cqe_overflow")
int BPF_PROG(pf_cqe_overflow, void *rctx, __u64 user_data, __s32 res,
	     __u32 cflags, void *ocqe)
{
	struct pf_ring_stats *rs;
	__u64 a, unused;
	__u32 ring;

	if (as_numbers(rctx, 0, &a, &unused))
		return 0;
	ring = ring_slot(a);
	if (ring < PF_RING_FULL && (rs = ring_stats(ring)))
		rs->cq_overflows++;
	return 0;
}

SEC("tp_btf/io_uring_cqring_wait")
int BPF_PROG(pf_cqring_wait, void *rctx, int min_events)
{
	struct pf_ring_stats *rs;
	__u64 a, unused;
	__u32 ring, b;

	if (as_numbers(rctx, 0, &a, &unused))
		return 0;
	ring = ring_slot(a);
	if (ring >= PF_RING_FULL || !(rs = ring_stats(ring)))
		return 0;
	rs->cqring_waits++;
	b = min_events > 0 ? log2_u64(min_events) : 0;
	if (b >= PF_WAIT_BUCKETS)
		b = PF_WAIT_BUCKETS - 1;
	rs->wait_hist[b & 15]++;
	return 0;
}

/* ---- system calls ------------------------------------------------------ */

static __always_inline __u32 enter_slot(__u32 tgid, __u32 fd, __u32 flags)
{
	__u64 key = (__u64)tgid << 32 | fd;
	struct fd_cache_ent *c;
	__u32 i, slot, gen;
	__u64 ra;

	if (flags & UC_ENTER_REGISTERED_RING)
		key |= 1u << 31;
	i = addr_hash(key, 10);
	c = bpf_map_lookup_elem(&pf_fd_cache, &i);
	gen = follow_gen;		/* read before judging */
	/* a slot's ring may have closed and the slot gone to another: the
	 * descriptor is then looked at again */
	if (c && c->key == key && (c->slot >= PF_RING_FULL ? c->slot == PF_RING_FULL ||
				   c->gen == gen : c->serial && c->serial == slot_serial(c->slot)))
		return c->slot;
	if (!followed(tgid)) {
		fd_cache_put_gen(key, PF_NO_RING, gen);
		return PF_NO_RING;
	}
	ra = enter_ring(fd, flags);
	slot = ra ? ring_slot(ra) : PF_NO_RING;
	fd_cache_put(key, slot);
	return slot;
}

/* System call arguments by direct loads from the trusted pt_regs (the
 * CO-RE macros would be a probe read each). */
#if defined(__TARGET_ARCH_x86)
#define SC_ARG1(r)	((r)->di)
#define SC_ARG2(r)	((r)->si)
#define SC_ARG4(r)	((r)->r10)
#else
#define SC_ARG1(r)	PT_REGS_PARM1_CORE_SYSCALL(r)
#define SC_ARG2(r)	PT_REGS_PARM2_CORE_SYSCALL(r)
#define SC_ARG4(r)	PT_REGS_PARM4_CORE_SYSCALL(r)
#endif

SEC("tp_btf/sys_enter")
int BPF_PROG(pf_sys_enter, struct pt_regs *regs, long id)
{
	struct pf_ring_stats *rs;
	__u32 tgid, slot, flags, to_submit;

	if (id != PF_NR_ENTER && id != PF_NR_REGISTER && id != PF_NR_SETUP)
		return 0;
	tgid = current_pid_tgid() >> 32;
	if (id == PF_NR_ENTER) {
		flags = SC_ARG4(regs);
		slot = enter_slot(tgid, SC_ARG1(regs), flags);
		if (slot >= PF_RING_FULL || !(rs = ring_stats(slot)))
			return 0;
		to_submit = SC_ARG2(regs);
		rs->enters++;
		if (to_submit) {
			rs->enters_submitting++;
			rs->enter_sqes += to_submit;
		}
		if (flags & PF_ENTER_GETEVENTS)
			rs->enters_waiting++;
		if (flags & PF_ENTER_SQ_WAKEUP)
			rs->sq_wakeups++;
		return 0;
	}
	if (!followed(tgid))
		return 0;
	if (id == PF_NR_SETUP) {
		struct pf_proc zero = {}, *p = bpf_map_lookup_elem(&pf_procs, &tgid);

		if (!p) {
			bpf_map_update_elem(&pf_procs, &tgid, &zero, BPF_NOEXIST);
			p = bpf_map_lookup_elem(&pf_procs, &tgid);
		}
		if (p)
			__sync_fetch_and_add(&p->setups, 1);
		return 0;
	}
	/* io_uring_register: rare, timed to its end (pf_register) */
	{
		__u32 tid = (__u32)bpf_get_current_pid_tgid();
		struct pf_call c = {};

		slot = enter_slot(tgid, SC_ARG1(regs), 0);
		if (slot >= PF_RING_FULL)
			return 0;
		c.ring = slot;
		c.opcode = SC_ARG2(regs);
		c.ts = bpf_ktime_get_ns();
		bpf_map_update_elem(&pf_calls, &tid, &c, BPF_ANY);
	}
	return 0;
}

/* io_uring_register's end: the kernel's own tracepoint, fired with the
 * ring's lock still held once the operation is done (every supported
 * kernel has it with this form). Timing to it rather than to sys_exit
 * spares a program on every system call of the machine. A call that fails
 * before taking the ring (a bad descriptor) never gets here: its entry is
 * overwritten by the thread's next call. */
SEC("tp_btf/io_uring_register")
int BPF_PROG(pf_register, void *rctx, unsigned int opcode, unsigned int nr_files,
	     unsigned int nr_bufs, long ret)
{
	struct pf_ring_stats *rs;
	struct pf_call *c;
	__u32 tid, op;
	__u64 ns;

	tid = (__u32)bpf_get_current_pid_tgid();
	c = bpf_map_lookup_elem(&pf_calls, &tid);
	if (!c)
		return 0;
	ns = bpf_ktime_get_ns() - c->ts;
	rs = ring_stats(c->ring);
	if (rs) {
		op = c->opcode < PF_REG_OPS ? c->opcode : PF_REG_OPS - 1;
		rs->register_calls++;
		rs->register_ns += ns;
		if (ret < 0)
			rs->register_errors++;
		rs->reg_count[op & 63]++;
		rs->reg_ns[op & 63] += ns;
	}
	bpf_map_delete_elem(&pf_calls, &tid);
	return 0;
}

/* ---- io-wq and SQPOLL threads ------------------------------------------ */

/* An io thread is an io-wq worker or an SQPOLL thread; which one, from
 * the kernel's own facts (io_thread_is_wq_worker). */
static __always_inline void thread_on(struct task_struct *t, __u64 now)
{
	__u32 tid = t->pid, tgid = task_tgid_in_ns(t);
	struct pf_thread *th = bpf_map_lookup_elem(&pf_threads, &tid);

	if (!th) {
		struct pf_thread n = { .tgid = tgid };
		struct pf_proc zero = {}, *p;

		if (!followed(tgid))
			return;
		n.sqpoll = !io_thread_is_wq_worker(t);
		if (bpf_map_update_elem(&pf_threads, &tid, &n, BPF_NOEXIST)) {
			stat_inc(PF_STAT_THREADS_FULL);
			return;
		}
		th = bpf_map_lookup_elem(&pf_threads, &tid);
		if (!th)
			return;
		p = bpf_map_lookup_elem(&pf_procs, &tgid);
		if (!p) {
			bpf_map_update_elem(&pf_procs, &tgid, &zero, BPF_NOEXIST);
			p = bpf_map_lookup_elem(&pf_procs, &tgid);
		}
		if (p) {
			if (n.sqpoll)
				__sync_fetch_and_add(&p->sqpoll_threads, 1);
			else
				__sync_fetch_and_add(&p->workers, 1);
		}
	}
	th->on_since = now;
}

static __always_inline void thread_off(struct task_struct *t, __u64 now)
{
	__u32 tid = t->pid, tgid;
	struct pf_thread *th = bpf_map_lookup_elem(&pf_threads, &tid);
	struct pf_proc *p;
	__u64 d;

	if (!th || !th->on_since)
		return;
	d = now - th->on_since;
	th->on_since = 0;
	th->oncpu_ns += d;
	tgid = th->tgid;
	p = bpf_map_lookup_elem(&pf_procs, &tgid);
	if (!p)
		return;
	if (th->sqpoll) {
		__sync_fetch_and_add(&p->sqpoll_oncpu_ns, d);
		__sync_fetch_and_add(&p->sqpoll_switches, 1);
	} else {
		__sync_fetch_and_add(&p->worker_oncpu_ns, d);
	}
}

SEC("tp_btf/sched_switch")
int BPF_PROG(pf_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	bool p = prev->flags & UC_PF_IO_WORKER, n = next->flags & UC_PF_IO_WORKER;
	__u64 now;

	if (!p && !n)
		return 0;
	now = bpf_ktime_get_ns();
	if (p)
		thread_off(prev, now);
	if (n)
		thread_on(next, now);
	return 0;
}
