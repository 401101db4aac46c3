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
 * event: IOSQE_CQE_SKIP_SUCCESS, or a CQE that went to the overflow list.
 * Their ends are found at a bounded cost per event (docs/design.md):
 *  - an overflowed CQE belongs to the next request of the completion
 *    batch being flushed after the last one seen posting: a cursor per
 *    ring follows the batch, one step per CQE;
 *  - a request ends only after the member before it in its link chain,
 *    so a chain member's end ends its predecessors;
 *  - a finished request is pushed on its ring's free-request stack, so
 *    before a submission on a ring with CQE-skipping requests in flight
 *    the top of that stack is read, as deep as the requests freed since
 *    the last look (counted at each completion);
 *  - at a teardown, the whole stack;
 *  - a request slot reused by a new submission ends the old one.
 *
 * One loaded copy serves every uringcheck instance on the machine
 * (checker/shared.h): each is a session, with its own event buffer,
 * counters and settings; a process, ring or request carries the session
 * it belongs to, and its records go to that session's buffer only.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "uringcheck.h"
#include "io_uring_access.bpf.h"
#include "untrusted.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space before load. */
const volatile __u64 reissue_flag = 0;	/* REQ_F_REISSUE from kernel BTF */
/* Longest free-request stack read at a teardown; the rest is counted
 * (UC_STAT_WALK_TRUNC). */
const volatile __u32 list_walk_max = 65536;

/* Every process followed, by tgid, with the session that follows it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);		/* tgid */
	__type(value, struct uc_tracked);
} tracked SEC(".maps");

/* Per session: its settings (reap-lag threshold, stack size, owner). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, UC_MAX_SESSIONS);
	__type(key, __u32);
	__type(value, struct uc_session_cfg);
} sessions SEC(".maps");

static __always_inline struct uc_session_cfg *session_cfg(__u32 sid)
{
	return bpf_map_lookup_elem(&sessions, &sid);
}

/* The instance now holding session @sid (0: none). */
static __always_inline __u32 session_owner(__u32 sid)
{
	struct uc_session_cfg *cfg = session_cfg(sid);

	return cfg ? cfg->owner : 0;
}

static __always_inline bool session_owned_by(__u32 sid, __u32 owner)
{
	return owner && session_owner(sid) == owner;
}

#define POST_TS_SLOTS	64		/* CQ positions whose post time is kept */

/* A buffer-select request in flight on a ring, looked at for a held
 * provided buffer (bpf/provided_buffers.bpf.h). */
#define PBUF_WATCH	4
struct pbuf_watch {
	__u64 req;			/* 0: free */
	__u64 seq;
	__u64 seq_sent_held;		/* its held buffer was sent ... */
	__u64 addr_sent;		/* ... at this address */
	__u16 bgid;
	__u16 bid_sent;			/* ... under this buffer id */
	__u16 pad[2];
};

struct ring_info {
	__u32 tgid;			/* process that created it */
	__u32 session;			/* ... and its session */
	__u32 lag_active;		/* the CQE at lag_pos is late */
	__u32 slot1;			/* its ring_slots index + 1, 0: none */
	__s64 quiet_inflight;		/* requests that may end without CQE */
	__s64 inflight;			/* requests in flight (INF_COUNTED) */
	__s64 mem_inflight;		/* ... of them holding user memory: the
					 * only partners of a sync call
					 * (bpf/sync_calls.bpf.h) */
	__u64 mem_lo, mem_hi;		/* ... the span of their ranges, at
					 * least (bpf/heap_bounds.bpf.h) */
	__u64 freed;			/* ends since the free stack was read */
	__u64 ovf_cursor;		/* last request seen ending in a flush */
	__u64 ovf_batch;		/* ... the batch it was in (its head) */
	__u64 ovf_unmatched;		/* overflows not matched at once */
	/* reap lag: when the CQE at each recent CQ position was posted */
	__u64 post_ts[POST_TS_SLOTS];
	__u32 post_pos[POST_TS_SLOTS];
	__u8 post_op[POST_TS_SLOTS];	/* opcode + 1 of its request, 0: ? */
	__u32 lag_pos;
	__u32 lag_pending;
	__u64 lag_post;
	__u64 lag_seen;			/* last time seen still unconsumed */
	__u64 lag_user_data;
	/* the longest other system call a thread of the process spent
	 * while the late CQE waited (bpf/syscalls.bpf.h, blocking_ends) */
	__u64 lag_block_ns;
	__u32 lag_block_nr;
	__u32 lag_block_tid;
	/* buffer-select requests watched for held buffers (more than
	 * PBUF_WATCH at once: the rest are judged at their CQEs only) */
	__u32 pbuf_watched;
	__u32 pbuf_pad;
	struct pbuf_watch pbuf_watch[PBUF_WATCH];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);		/* struct io_ring_ctx * */
	__type(value, struct ring_info);
} rings SEC(".maps");

#include "inflight.bpf.h"
#include "heap_bounds.bpf.h"
#include "ring_index.bpf.h"

/* bpf/teardown.bpf.h */
__noinline int forget_process(__u32 sid, __u32 tgid);

/* Per session: its event buffer, created by its instance (any size). */
struct events_template {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 << 10);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, UC_MAX_SESSIONS);
	__type(key, __u32);
	__array(values, struct events_template);
} session_events SEC(".maps");

/* Per session: UC_STAT__COUNT counters at session * UC_STAT__COUNT. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UC_MAX_SESSIONS * UC_STAT__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

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

/*
 * Sequence numbers (requests, calls, captures, teardowns): unique, never
 * 0, not ordered. Per CPU, so that instances and threads submitting on
 * different CPUs do not bounce one shared counter's cache line between
 * them on every request: a count per CPU, with the CPU in the low bits.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} seq_counter SEC(".maps");

static __always_inline __u64 new_seq(void)
{
	__u32 zero = 0;
	__u64 *c = bpf_map_lookup_elem(&seq_counter, &zero);

	if (!c)
		return 0;
	/* Atomic: a program in interrupt context may bump it meanwhile. */
	return ((__sync_fetch_and_add(c, 1) + 1) << 12) |
	       (bpf_get_smp_processor_id() & 0xfff);
}

/*
 * The clock reap lag is timed with. It is read for every CQE posted, and
 * a precise clock read is ~20 ns there; a threshold of tens of
 * milliseconds does not need better than a scheduler tick, so with a
 * threshold of at least 10 ticks it is jiffies (a memory read). The tick
 * rate is set by user space from the kernel's config when it can find
 * one (not a libbpf __kconfig extern: without /boot/config-* or
 * /proc/config.gz, as in containers and initramfs images, that made the
 * whole load fail); 0, or a short threshold: the precise clock.
 */
const volatile __u64 hz = 0;

static __always_inline __u64 lag_clock(__u64 threshold)
{
	if (hz && threshold >= 10 * (1000000000ULL / hz))
		return bpf_jiffies64() * (1000000000ULL / hz);
	return bpf_ktime_get_ns();
}

static __always_inline void stat_inc(__u32 sid, __u32 which)
{
	__u32 key = (sid % UC_MAX_SESSIONS) * UC_STAT__COUNT + which;
	__u64 *v = bpf_map_lookup_elem(&stats, &key);

	if (v)
		*v += 1;
}

static __always_inline void *session_rb(__u32 sid)
{
	return bpf_map_lookup_elem(&session_events, &sid);
}

#include "losses.bpf.h"

/* No buffer: the session's instance has left (its processes' late ends
 * have no one to go to), nothing is counted against the slot's next
 * owner. A full buffer is counted. */
static __always_inline void *ev_reserve(__u32 sid, __u64 size, __u32 type)
{
	void *rb = session_rb(sid), *e;

	if (!rb)
		return NULL;
	e = bpf_ringbuf_reserve(rb, size, 0);
	if (!e)
		note_loss(sid, type);
	return e;
}

/*
 * Waking the reader. A forced wake-up is an interrupt in the thread that
 * produced the record (an irq_work self-IPI, costly in a VM), so the
 * reader is woken only when it is asleep: it sets reader_sleeping before
 * an idle wait (20 ms at most, run/main.c) and polls every
 * millisecond while events keep coming. The first record produced while
 * it sleeps wakes it, once; every other record is committed without a
 * wake-up. (Per-record and per-threshold policies woke it again and
 * again under load: the largest single cost in the benchmark.)
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);	/* written by the readers */
	__uint(max_entries, UC_MAX_SESSIONS);
	__type(key, __u32);
	__type(value, __u64);
} reader_sleeping SEC(".maps");

static __always_inline __u64 wakeup_flags(__u32 sid)
{
	__u64 *sleeping = bpf_map_lookup_elem(&reader_sleeping, &sid);

	if (sleeping && *sleeping &&
	    __sync_val_compare_and_swap(sleeping, 1, 0) == 1)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

static __always_inline void ev_submit(__u32 sid, void *e)
{
	bpf_ringbuf_submit(e, wakeup_flags(sid));
}

/* A record assembled elsewhere (a per-CPU scratch buffer), copied in;
 * false if it was lost. */
static __always_inline bool ev_output(__u32 sid, void *data, __u64 size)
{
	void *rb = session_rb(sid);

	if (!rb)
		return false;
	if (bpf_ringbuf_output(rb, data, size, wakeup_flags(sid))) {
		note_loss(sid, ((struct uc_hdr *)data)->type);
		return false;
	}
	return true;
}

/* A header stamped with a clock time the caller already read: on the
 * per-request path each clock read is a measurable share of the cost
 * (a paravirtual clock in VMs), so it is read once per event. */
static __always_inline void fill_hdr_at(struct uc_hdr *h, __u32 type, __u32 tgid,
					__u64 ts)
{
	h->type = type;
	h->tgid = tgid;
	h->tid = (__u32)bpf_get_current_pid_tgid();
	h->pad = 0;
	h->ts = ts;
}

static __always_inline void fill_hdr(struct uc_hdr *h, __u32 type, __u32 tgid)
{
	fill_hdr_at(h, type, tgid, bpf_ktime_get_ns());
}

/* The current process's entry if it is followed (by any session). */
static __always_inline struct uc_tracked *current_tracked(__u32 *tgid)
{
	*tgid = bpf_get_current_pid_tgid() >> 32;
	return bpf_map_lookup_elem(&tracked, tgid);
}

/*
 * Per thread, its current io_uring_enter: when it began and the stack
 * captured for it. Every request that call submits is stamped with that
 * time (within microseconds of its own submission: io_uring submits at
 * the start of the call), and shares the capture: one clock read and one
 * capture per call instead of per request. Task-local storage, found
 * from the task itself without hashing.
 */
struct enter_state {
	__u64 ts;			/* bpf_ktime_get_ns() at sys_enter */
	__u64 stack_id;			/* capture for this call, 0 if none yet */
	__u32 session;			/* the session following the thread */
	/* reap lag: the other system call the thread is in, since when
	 * (bpf/syscalls.bpf.h, blocking_begins) */
	__u32 sys_nr;
	__u64 sys_ts;			/* 0: none */
	__u32 sync_nr;			/* a sync call sent, its result wanted */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct enter_state);
} enter_states SEC(".maps");

#define ENTER_NO_SESSION	0xffffffffu

/*
 * A new io_uring_enter of the current thread; @t: its process's entry,
 * NULL if no session follows it (any more: its uringcheck left), when
 * the state of an earlier call must not make uc_submit take it for one of
 * that session's threads.
 */
static __always_inline void enter_begins(struct uc_tracked *t)
{
	struct enter_state *es = bpf_task_storage_get(&enter_states,
				bpf_get_current_task_btf(), 0,
				t ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);

	if (!es) {
		if (t)
			stat_inc(t->session, UC_STAT_TASK_STORAGE);
		return;
	}
	if (!t) {
		es->session = ENTER_NO_SESSION;
		return;
	}
	es->ts = bpf_ktime_get_ns();
	es->stack_id = 0;
	es->session = t->session;
	es->sys_ts = 0;		/* waiting here is not being elsewhere */
}

#include "stacks.bpf.h"
#include "provided_buffers.bpf.h"

/* ---- process tree ---------------------------------------------------- */

SEC("tp_btf/sched_process_fork")
int BPF_PROG(uc_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	struct uc_tracked *pt, ct = { .state = UC_TRACKED };
	struct uc_proc *e;

	/* Threads share the tgid and are covered already. */
	if (ptgid == ctgid || !(pt = bpf_map_lookup_elem(&tracked, &ptgid)))
		return 0;
	ct.session = pt->session;
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
static long forget_ring(__u64 i, __u32 *tgid)
{
	struct ring_info *ri;
	__u64 ctx;

	ri = ring_at(i, &ctx);
	if (ri && ri->tgid == *tgid) {
		ring_slot_release(ri->slot1, ctx);
		pbuf_ring_gone(ri);
		bpf_map_delete_elem(&rings, &ctx);
	}
	return 0;
}

static __always_inline int on_exit(struct task_struct *p, bool group_dead)
{
	struct uc_tracked *t;
	struct uc_proc *e;
	__u32 tgid, sid;

	if (!group_dead || !(t = current_tracked(&tgid)))
		return 0;
	sid = t->session;
	/* The tgid may be recycled by an unrelated process: forget it, its
	 * rings, and its requests (their teardown freed them, else they are
	 * freed here; user space forgets them on UC_EV_EXIT). */
	if (t->state != UC_TRACKED_TEARING_DOWN && t->used_uring)
		forget_process(sid, tgid);	/* no teardown freed its slots */
	bpf_map_delete_elem(&tracked, &tgid);
	bpf_map_delete_elem(&maps_sent, &tgid);
	bpf_loop(ring_slots_hi, forget_ring, &tgid, 0);
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
	if (ri)
		slot1 = ri->slot1;
	if (bpf_map_update_elem(&rings, &ctx, &ring_info_init, BPF_ANY)) {
		stat_inc(sid, UC_STAT_RINGS_FULL);
		return 0;
	}
	if (!slot1)
		slot1 = ring_slot_claim(ctx);
	ri = bpf_map_lookup_elem(&rings, &ctx);
	if (ri) {
		ri->tgid = tgid;
		ri->session = sid;
		ri->slot1 = slot1;
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

	if (!(t = current_tracked(&tgid)))
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

SEC("tp_btf/io_uring_create")
int BPF_PROG(uc_ring_create, int fd, void *ring, __u32 sq_entries,
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

/* ---- ends ------------------------------------------------------------ */

/* CQE-skipping requests in flight, and overflowed CQEs not matched to
 * their request, on any ring: the system calls that judge in-flight
 * memory (munmap, ...) look for their ends first. */
__s64 quiet_total;
__s64 unmatched_total;

/* A ring's unmatched overflows were looked for (on its free stack). */
static __always_inline void unmatched_done(struct ring_info *ri)
{
	if (ri->ovf_unmatched) {
		__sync_fetch_and_add(&unmatched_total, -(__s64)ri->ovf_unmatched);
		ri->ovf_unmatched = 0;
	}
}

static __always_inline void ring_add(__u64 ring, __u32 flags)
{
	struct ring_info *ri;

	/* Counted only where the ring was known at submission. */
	if (!(flags & INF_COUNTED))
		return;
	ri = bpf_map_lookup_elem(&rings, &ring);
	if (!ri)
		return;
	if (flags & INF_QUIET) {
		__sync_fetch_and_add(&ri->quiet_inflight, -1);
		__sync_fetch_and_add(&quiet_total, -1);
	}
	__sync_fetch_and_add(&ri->inflight, -1);
	if (flags & INF_HOLDS_MEM)
		__sync_fetch_and_add(&ri->mem_inflight, -1);
}

/*
 * Frees @slot if it still holds @key and tells the request's session it
 * ended; *@copy gets the entry. False if someone else ended it first.
 */
static __always_inline bool end_slot(int slot, __u64 key, __s32 res, __u32 cflags,
				     __u32 how, struct inflight_val *copy)
{
	struct inflight_val *v = inf_val(slot);
	struct uc_done *e;
	void *rb;
	__u64 pos;

	if (!v)
		return false;
	*copy = *v;
	/* Only the caller whose release succeeds reports the end. */
	if (!inf_release(slot, key))
		return false;
	if (copy->flags & INF_BSEL)
		pbuf_forget(copy->ctx, copy->user_data, key);
	/* Its session has changed hands since (the request outlived the
	 * instance that saw it submitted): the new owner never heard of it. */
	if (!session_owned_by(copy->session, copy->owner))
		return true;
	stat_inc(copy->session, UC_STAT_DONES);
	/* A CQE's end is counted down by uc_complete, which has the ring
	 * already: a ring lookup per completion was a measurable cost. */
	if (how != UC_DONE_CQE)
		ring_add(copy->ctx, copy->flags);
	if (!(copy->flags & INF_REPORTED))
		return true;
	rb = session_rb(copy->session);
	if (!rb)
		return true;
	/* Where the buffer stands before the record is tried: if it does not
	 * fit, the end is kept in lost_ends at this position. */
	pos = bpf_ringbuf_query(rb, BPF_RB_PROD_POS);
	e = bpf_ringbuf_reserve(rb, sizeof(*e), 0);
	if (!e) {
		note_lost_end(copy->session, copy->seq, pos);
		return true;
	}
	/* Nothing is timed from an end, and a clock read is a measurable
	 * share of this path: ends are not stamped (hdr.ts 0). */
	fill_hdr_at(&e->hdr, UC_EV_DONE, 0, 0);
	e->seq = copy->seq;
	e->ctx = copy->ctx;
	e->res = res;
	e->cflags = cflags;
	e->how = (copy->flags & INF_NOTIF) ? UC_DONE_NOTIF : how;
	e->pad = 0;
	ev_submit(copy->session, e);
	return true;
}

/*
 * The submission record of request @seq was lost: user space never knew
 * it, so its end is not worth sending, nor keeping when that is lost too.
 * (The request is not issued before its submission hook returns, so it
 * cannot have ended meanwhile.) Only on the loss path.
 */
static __noinline void unreport(__u64 key, __u64 seq)
{
	int slot = inf_find(key);
	struct inflight_val *v = slot >= 0 ? inf_val(slot) : NULL;

	if (v && v->seq == seq)
		v->flags &= ~INF_REPORTED;
}

__noinline int end_one(int slot, __u64 req, __u64 res_cflags, __u32 how,
		       struct inflight_val *copy);

struct chain_walk {
	__u32 slot;			/* predecessor's slot + 1, 0: none */
	__u32 pad;
	__u64 seq;			/* ... and its seq */
};

static long chain_step(__u64 i, struct chain_walk *w)
{
	struct inflight_val copy;
	__u32 idx = w->slot - 1;
	__u64 *k;

	if (!w->slot)
		return 1;
	k = inf_key(idx);
	w->slot = 0;
	if (!k || *k <= INF_BUSY) {
		return 1;
	} else {
		struct inflight_val *v = inf_val(idx);

		/* Ended already, and the slot taken by another request. */
		if (!v || v->seq != w->seq)
			return 1;
	}
	if (!end_one(idx, *k, 0, UC_DONE_CHAIN, &copy))
		return 1;
	w->slot = copy.prev_slot;
	w->seq = copy.prev_seq;
	return 0;
}

/* A chain member ended: the members before it (still in our table only
 * because they posted no CQE) ended before it. Global: verified once. */
__noinline int end_chain(__u32 prev_slot, __u64 prev_seq)
{
	struct chain_walk w = { .slot = prev_slot, .seq = prev_seq };

	bpf_loop(64, chain_step, &w, 0);
	return 0;
}

/* The request in @slot (key @req) ended with @res_cflags (CQE result in
 * the high half, flags in the low): release it and tell its session;
 * *@copy gets its entry. 1 if this caller released it. Global: verified
 * once per program, not at every caller. */
__noinline int end_one(int slot, __u64 req, __u64 res_cflags, __u32 how,
		       struct inflight_val *copy)
{
	if (!copy)
		return 0;
	return end_slot(slot, req, (__s32)(res_cflags >> 32), (__u32)res_cflags,
			how, copy);
}

/*
 * @req finished (or, for UC_DONE_REUSED, must have). @ring, when not 0,
 * must match the ring the request was submitted on: a completion on
 * another ring at the same address is someone else's. Inline, so that a
 * ring given as a kernel pointer can be compared (a global function takes
 * only numbers). @chain: the members before it in its link chain ended
 * too (an end the request itself announced; not one found on a list,
 * where those members are found on their own).
 */
static __always_inline __s64 end_request_how(__u64 req, __u64 ring, __s32 res,
					      __u32 cflags, __u32 how, bool chain)
{
	int slot = inf_find(req);
	struct inflight_val copy, *v;

	if (slot < 0)
		return -1;
	v = inf_val(slot);
	if (!v || (ring && v->ctx != ring))
		return -1;
	/* (Five arguments at most: result and flags travel together.) */
	if (!end_one(slot, req, ((__u64)(__u32)res << 32) | cflags, how, &copy))
		return -1;
	/* A linked timeout may fire while the request before it still
	 * runs: its end says nothing about that request. */
	if (chain && copy.prev_slot && copy.opcode != IORING_OP_LINK_TIMEOUT)
		end_chain(copy.prev_slot, copy.prev_seq);
	/* The ended entry's flags, for the ring's counts, and its opcode + 1
	 * above them, for the teardown listing (uc_complete). */
	return session_owned_by(copy.session, copy.owner) ?
	       (copy.flags & 0xffff) | ((__s64)copy.opcode + 1) << 16 : 0;
}

#define end_request(req, ring, res, cflags, how) \
	end_request_how(req, ring, res, cflags, how, \
			(how) == UC_DONE_CQE || (how) == UC_DONE_OVERFLOW)

/* A request slot the kernel reuses: whatever held it ended unseen.
 * Global: the submit path reaches it in several states. */
__noinline int end_reused(__u64 req)
{
	end_request(req, 0, 0, 0, UC_DONE_REUSED);
	return 0;
}

/*
 * Reading a ring's free-request stack: every request the kernel finished
 * is pushed there (io_req_add_to_cache) until a submission takes it
 * again, so one found there has ended, whether or not it posted a CQE.
 */
struct list_walk {
	void *node;			/* struct io_wq_work_node * */
	__u64 ring;
};

static long end_listed(__u64 i, struct list_walk *w)
{
	struct io_wq_work_node *node = w->node;
	struct io_kiocb *req;

	if (!node)
		return 1;
	req = comp_node_to_req(node);
	/* REISSUE requests go back to io-wq and finish later. */
	if (!(req_flags(req) & reissue_flag))
		end_request((__u64)req, w->ring, BPF_CORE_READ(req, cqe.res),
			    BPF_CORE_READ(req, cqe.flags), UC_DONE_LISTED);
	w->node = UC_NEXT(node);
	return 0;
}

/* Ends the finished requests among the first @max of a list; 1 if the
 * list was longer. Global: its callback (which ends requests) is verified
 * once per program, not once per caller. */
__noinline int walk_list(__u64 first, __u64 ring, __u32 max)
{
	struct list_walk w = { .node = (void *)first, .ring = ring };

	bpf_loop(max, end_listed, &w, 0);
	return w.node != NULL;
}

/*
 * Before a submission on a ring with CQE-skipping requests in flight:
 * the requests completed in the batch being built (the ones issued
 * inline by this very call), and the top of the free stack as deep as
 * the requests ended since the last look (plus the quiet ones, which
 * were not counted): a request freed since then is no deeper. Global:
 * verified once, for the submit path's several states.
 */
__noinline int collect_quiet_ends(__u64 ring_addr, struct ring_info *ri)
{
	struct io_ring_ctx *ring = (struct io_ring_ctx *)ring_addr;
	__u64 depth;

	if (!ri || !ring)
		return 0;
	depth = ri->freed + ri->quiet_inflight + 8;
	ri->freed = 0;
	unmatched_done(ri);
	if (depth > 4096)
		depth = 4096;
	walk_list((__u64)BPF_CORE_READ(ring, submit_state.compl_reqs.first), ring_addr, 64);
	walk_list((__u64)BPF_CORE_READ(ring, submit_state.free_list.next), ring_addr, depth);
	return 0;
}

static long collect_ring(__u64 i, __u32 *tgid)
{
	struct ring_info *ri;
	__u64 ctx;

	ri = ring_at(i, &ctx);
	if (ri && ri->tgid == *tgid && (ri->quiet_inflight > 0 || ri->ovf_unmatched))
		collect_quiet_ends(ctx, ri);
	return 0;
}

/* Before a system call of @tgid is judged against its in-flight memory. */
static __always_inline void collect_process_quiet_ends(__u32 tgid)
{
	if (quiet_total > 0 || unmatched_total > 0)
		bpf_loop(ring_slots_hi, collect_ring, &tgid, 0);
}

/* ---- submission ------------------------------------------------------ */

/*
 * The continuation records of one iovec array. The callback derives
 * everything from the iteration number and this context, which it never
 * changes (but to note where it stopped): the verifier checks bpf_loop
 * callbacks like loop bodies, and a context that changed every iteration
 * kept it from converging (thousands of states, tens of milliseconds of
 * start-up, for the three callers inlined in classify()).
 */
struct iov_walk {
	struct uc_range *uvec;		/* first iovec not sent inline */
	__u32 nr;			/* iovecs to send */
	__u32 sent;			/* of those, sent (nr unless stopped) */
	__u32 tgid;
	__u32 session;
	__u64 seq;
};

/* Continuation record @i: iovecs [i * UC_CHUNK_RANGES, +UC_CHUNK_RANGES). */
static long send_iov_chunk(__u64 i, struct iov_walk *w)
{
	__u32 first = i * UC_CHUNK_RANGES, n;
	struct uc_ranges *e;

	if (first >= w->nr)
		return 1;
	n = w->nr - first;
	if (n > UC_CHUNK_RANGES)
		n = UC_CHUNK_RANGES;
	e = ev_reserve(w->session, sizeof(*e), UC_EV_RANGES);
	if (!e) {
		w->sent = first;
		return 1;
	}
	fill_hdr(&e->hdr, UC_EV_RANGES, w->tgid);
	e->seq = w->seq;
	e->nr = n;
	e->pad = 0;
	if (bpf_probe_read_user(e->ranges, n * sizeof(struct uc_range),
				w->uvec + first)) {
		stat_inc(w->session, UC_STAT_IOVEC_FAULT);
		e->nr = 0;
	}
	ev_submit(w->session, e);
	return 0;
}

/* Continuation records for the @nr iovecs at @uvec; the number sent.
 * Global: verified once, where inline its loop was verified again for
 * every state the inline reads before it left (a dozen in classify). */
__noinline int send_iov_rest(__u64 uvec, __u32 nr, __u32 tgid, __u32 sid, __u64 seq)
{
	struct iov_walk w = {};

	w.uvec = (struct uc_range *)uvec;
	w.nr = nr;
	w.sent = nr;
	w.tgid = tgid;
	w.session = sid;
	w.seq = seq;
	bpf_loop((UC_MAX_IOVECS + UC_CHUNK_RANGES - 1) / UC_CHUNK_RANGES,
		 send_iov_chunk, &w, 0);
	return w.sent;
}

/*
 * Reads an iovec array's data ranges (at most UC_MAX_IOVECS, the rest
 * counted): into @inl from slot @slot up to UC_INLINE_RANGES, the rest as
 * UC_EV_RANGES records for @seq, which are reserved (and so delivered)
 * before the record that announces them. Returns the ranges sent, inline
 * and continued, in *@ninline and the return value; -1 if unreadable.
 */
static __always_inline int read_iovecs(struct uc_range *inl, __u32 slot,
				       struct uc_range *uvec, __u64 nr,
				       __u32 tgid, __u32 sid, __u64 seq,
				       __u32 *ninline)
{
	__u32 room, n;

	if (nr > UC_MAX_IOVECS) {
		stat_inc(sid, UC_STAT_IOVECS_TRUNC);
		nr = UC_MAX_IOVECS;
	}
	*ninline = slot;
	if (slot >= UC_INLINE_RANGES)
		return slot;
	room = UC_INLINE_RANGES - slot;
	n = nr < room ? nr : room;
	/* One constant-size read per slot keeps the verifier's bounds simple. */
	for (__u32 i = 0; i < UC_INLINE_RANGES; i++) {
		if (i >= n)
			break;
		if (bpf_probe_read_user(&inl[(slot + i) & (UC_INLINE_RANGES - 1)],
					sizeof(struct uc_range), uvec + i)) {
			stat_inc(sid, UC_STAT_IOVEC_FAULT);
			return -1;
		}
	}
	*ninline = slot + n;
	if (nr <= n)
		return slot + n;
	return slot + n + send_iov_rest((__u64)(uvec + n), nr - n, tgid, sid, seq);
}

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
	case IORING_OP_WRITE:
		add_range(s, BPF_CORE_READ(req_rw(req), addr),
			  BPF_CORE_READ(req_rw(req), len));
		break;
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
 */
__noinline int track_notif(__u64 notif, struct inflight_val *v, struct uc_submit *s)
{
	struct inflight_val nv;

	if (!notif || !v || !s)
		return 0;
	nv = *v;
	nv.flags = INF_REPORTED | INF_NOTIF | INF_HOLDS_MEM;
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
			s->flags |= UC_SUB_SQPOLL;	/* no user stack to take */
			v->flags |= INF_SQPOLL;
		} else {
			s->stack_id = v->stack_id =
				submit_stack(v->tgid, v->session, call_stack, have_es);
		}
	}
	if (reported) {
		s->user_data = v->user_data;
		if (notif)
			track_notif(notif, v, s);
	}
	if (s->sqe_flags & UC_IOSQE_CQE_SKIP_SUCCESS)
		v->flags |= INF_QUIET;
	if (ri)
		v->flags |= INF_COUNTED;
	/* The kernel reuses a request slot only after the request ended, so
	 * an entry already there belongs to a request that ended unseen. */
	end_reused(key);
	if (inf_insert(key, v)) {
		/* Nothing could end it for user space: it is not told of it
		 * at all (a hazard it takes part in is missed, and counted),
		 * rather than kept in flight for ever. */
		stat_inc(v->session, UC_STAT_INFLIGHT_FULL);
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
	if (!(bpf_get_current_task_btf()->flags & UC_PF_IO_WORKER))
		es = bpf_task_storage_get(&enter_states, bpf_get_current_task_btf(),
					  0, 0);
	if (es && es->session != ENTER_NO_SESSION) {
		tgid = bpf_get_current_pid_tgid() >> 32;
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
	ring_key = (__u64)ring;
	ri = bpf_map_lookup_elem(&rings, &ring_key);
	if (!ri) {
		/* A ring we did not see created (inherited or received). Its
		 * address as a plain number (copied, the verifier forgets its
		 * type): a global function takes no kernel pointer. */
		__u64 ring_nr = 0;

		bpf_probe_read_kernel(&ring_nr, sizeof(ring_nr), &ring_key);
		ring_track(ring_nr, (__u64)tgid << 32 | sid, -1, ring->flags, 0);
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
	v->tid = (__u32)bpf_get_current_pid_tgid();
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
	if (!ri)
		return 0;
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

#include "reap_lag.bpf.h"
#include "channels.bpf.h"
#include "syscalls.bpf.h"
#include "teardown.bpf.h"
#include "heap_release.bpf.h"
