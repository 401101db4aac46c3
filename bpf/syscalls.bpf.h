/* SPDX-License-Identifier: GPL-2.0 */
/*
 * System calls that change what an in-flight request may touch, seen at
 * raw syscall entry/exit (tp_btf/sys_enter, sys_exit: no tracefs needed).
 * Both fire for every system call on the machine, so the syscall number
 * is checked before anything else.
 *
 *   munmap, mremap, madvise     -> UC_EV_CALL, UC_EV_CALL_RET (result)
 *   io_uring_register           -> UC_EV_CALL (+ the iovecs registered),
 *                                  then UC_EV_REGISTER from the
 *                                  io_uring_register tracepoint (ring, result)
 *   close of a ring's last fd,
 *   exit_group / exit of the last thread,
 *   execve / execveat           -> teardown snapshot (teardown.bpf.h); a
 *                                  failed exec's UC_EV_CALL_RET withdraws it
 *   io_uring_enter              -> the kernel's own SQ drops (sq_drops.bpf.h)
 */
#ifndef __SYSCALLS_BPF_H
#define __SYSCALLS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "uringcheck.h"
#include "session.bpf.h"
#include "tracked.bpf.h"
#include "events.bpf.h"
#include "sequence.bpf.h"
#include "enter_state.bpf.h"
#include "rings.bpf.h"
#include "ring_index.bpf.h"
#include "request_ends.bpf.h"
#include "iovecs.bpf.h"
#include "sync_calls.bpf.h"
#include "stacks.bpf.h"
#include "channels.bpf.h"
#include "teardown.bpf.h"
#include "stack_frames.bpf.h"
#include "sq_drops.bpf.h"

#if !defined(__TARGET_ARCH_x86)
#error "syscall numbers in uringcheck.h are x86-64 only"
#endif

/* uapi io_uring_register opcodes */
#define UC_REG_BUFFERS		0
#define UC_REG_BUFFERS2		15
#define UC_REG_BUFFERS_UPDATE	16
#define UC_REG_USE_REGISTERED_RING	(1u << 31)

/* madvise advice that drops the pages under a range */
#define UC_MAP_FIXED		0x10
#define UC_MADV_DONTNEED	4
#define UC_MADV_FREE		8
#define UC_MADV_REMOVE		9

/* struct file's reference count: f_ref since v6.13 (file_ref_t, 0 means
 * one reference), f_count (atomic_long_t) before. */
struct file___pre_6_13 {
	atomic_long_t f_count;
} __attribute__((preserve_access_index));

static __always_inline bool file_last_ref(struct file *f)
{
	if (bpf_core_field_exists(struct file, f_ref))
		return BPF_CORE_READ(f, f_ref.refcnt.counter) == 0;
	return BPF_CORE_READ((struct file___pre_6_13 *)f, f_count.counter) == 1;
}

/* The io_uring ring behind @fd if it is one of ours, else 0. */
static __always_inline __u64 fd_to_ring(int fd, bool *last)
{
	struct file *f = fd_file(fd);
	__u64 ring;

	if (!f)
		return 0;
	ring = (__u64)BPF_CORE_READ(f, private_data);
	if (!ring || !bpf_map_lookup_elem(&rings, &ring))
		return 0;
	*last = file_last_ref(f);
	return ring;
}

/* Global for the same reason as classify(): verified once, alone. */
__noinline int read_reg_iovecs(struct uc_call *c, __u32 opcode, __u64 arg,
			       __u32 nr_args, __u32 sid)
{
	struct uc_range *uvec = NULL;
	__u32 nr = 0;

	if (!c)
		return 0;
	if (opcode == UC_REG_BUFFERS) {
		uvec = (struct uc_range *)arg;
		nr = nr_args;
	} else if (opcode == UC_REG_BUFFERS2) {
		struct uc_rsrc_register r = {};

		if (bpf_probe_read_user(&r, sizeof(r), (void *)arg))
			return 0;
		uvec = (struct uc_range *)r.data;	/* NULL: sparse table */
		nr = r.nr;
	} else if (opcode == UC_REG_BUFFERS_UPDATE) {
		struct uc_rsrc_update2 u = {};

		if (bpf_probe_read_user(&u, sizeof(u), (void *)arg))
			return 0;
		uvec = (struct uc_range *)u.data;
		nr = u.nr;
		c->reg_offset = u.offset;
	} else {
		return 0;
	}
	c->reg_nr = nr;
	if (uvec)
		call_iovecs(c, (__u64)uvec, nr, sid);
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uc_call);
} call_scratch SEC(".maps");

/*
 * Reap lag: where the program was while a CQE waited. A thread that uses
 * io_uring (it has an enter_state) notes each other system call it enters;
 * when one that lasted a while returns and a CQE of its process is late,
 * the ring remembers the longest such call (fio sat 158-245 ms in
 * fadvise64 while its completions waited). Threads without an
 * enter_state pay one task-storage lookup that finds nothing.
 */
#define BLOCK_MIN_NS	1000000ULL	/* shorter calls are not named */

static __always_inline void blocking_begins(long id)
{
	struct enter_state *es = bpf_task_storage_get(&enter_states,
						      bpf_get_current_task_btf(), 0, 0);

	if (es && es->session != ENTER_NO_SESSION) {
		es->sys_nr = id;
		es->sys_ts = bpf_ktime_get_ns();
	}
}

struct blocked {
	__u32 tgid, tid, nr, pad;
	__u64 ns;			/* how long, ktime */
	__u64 end;			/* ... ending now, in each ring's lag clock */
	__u64 pick;		/* the process's rings */
};

static long note_blocked_ring(__u64 i, struct blocked *b)
{
	struct uc_session_cfg *cfg;
	struct ring_info *ri;
	__u64 ctx, start, now, ns;

	if (!ring_pick_slot(b->pick, &i))
		return 0;
	ri = ring_at(i, &ctx);
	if (!ri || ri->tgid != b->tgid || !ri->lag_active || ri->lag_gone)
		return 0;
	cfg = session_cfg(ri->session);
	if (!cfg)
		return 0;
	/* The part of the call during which the CQE was waiting. */
	now = lag_clock(cfg->reap_lag_ns);
	start = now > b->ns ? now - b->ns : 0;
	if (start < ri->lag_post)
		start = ri->lag_post;
	ns = now > start ? now - start : 0;
	if (ns > ri->lag_block_ns) {
		ri->lag_block_ns = ns;
		ri->lag_block_nr = b->nr;
		ri->lag_block_tid = b->tid;
	}
	return 0;
}

static __always_inline void blocking_ends(struct enter_state *es, long id)
{
	struct blocked b;
	__u64 pid_tgid;

	if (!es || !es->sys_ts)
		return;
	b.ns = bpf_ktime_get_ns() - es->sys_ts;
	es->sys_ts = 0;
	if (b.ns < BLOCK_MIN_NS)
		return;
	pid_tgid = current_pid_tgid();
	b.tgid = pid_tgid >> 32;
	b.tid = (__u32)pid_tgid;
	b.nr = id;
	b.pad = 0;
	bpf_loop(ring_pick_init(&b.pick, b.tgid), note_blocked_ring, &b, 0);
}

/*
 * A sync call sent at its entry: its "result wanted" mark, taken at its
 * exit (which then sends how much it moved). The count spares every other
 * system call's exit a look. Not in the thread's enter_state: on 7.x task
 * storage can fail both ways from these tracepoints, created
 * (kmalloc_nolock) or looked up (its per-CPU busy guard, held by a
 * preempted lookup), and a mark lost either way left a judged call
 * without its return (7.2 under TCG: about one run in 70 of a
 * sync-overlap injection). Nor in a hash map, whose updates allocate or
 * take a bucket lock. An array of (thread id, call + 1) words instead:
 * a thread's mark lives in one of SYNC_MARK_WINDOW slots from its home
 * slot, claimed with a compare-and-swap and cleared only by that thread,
 * so nothing allocates and nothing locks. A window full of other
 * threads' marks (that many threads with neighbouring ids in judged
 * calls at once) is counted (UC_STAT_SYNC_UNKEPT), never silent.
 */
#define SYNC_MARKS		4096	/* a power of two */
#define SYNC_MARK_WINDOW	4

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SYNC_MARKS);
	__type(key, __u32);
	__type(value, __u64);		/* tid << 32 | nr + 1; 0: free */
} sync_marks SEC(".maps");

__s64 sync_pending_n;

static __always_inline __u64 *sync_mark_slot(__u32 tid, __u32 i)
{
	__u32 idx = (tid + i) & (SYNC_MARKS - 1);

	return bpf_map_lookup_elem(&sync_marks, &idx);
}

static __always_inline void sync_pending_put(long id, __u32 sid)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 want = (__u64)tid << 32 | (__u32)(id + 1), *v;

	/* A mark of its own left (its exit unseen): replaced. */
	for (__u32 i = 0; i < SYNC_MARK_WINDOW; i++) {
		v = sync_mark_slot(tid, i);
		if (v && *v >> 32 == tid) {
			*v = want;
			return;
		}
	}
	for (__u32 i = 0; i < SYNC_MARK_WINDOW; i++) {
		v = sync_mark_slot(tid, i);
		if (v && !*v && __sync_val_compare_and_swap(v, 0, want) == 0) {
			__sync_fetch_and_add(&sync_pending_n, 1);
			return;
		}
	}
	stat_inc(sid, UC_STAT_SYNC_UNKEPT);
}

static __always_inline bool sync_pending_take(long id)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 want = (__u64)tid << 32 | (__u32)(id + 1), *v;

	for (__u32 i = 0; i < SYNC_MARK_WINDOW; i++) {
		v = sync_mark_slot(tid, i);
		if (!v || *v >> 32 != tid)
			continue;
		if (*v != want)
			return false;	/* another call's mark: not this one */
		if (__sync_val_compare_and_swap(v, want, 0) == want)
			__sync_fetch_and_add(&sync_pending_n, -1);
		return true;
	}
	return false;
}

/*
 * A watched call of a tracked process (not a teardown): judged worth a
 * record, then sent. Global, so verified once: inline, the verifier
 * walked it once for every syscall number the switch above reaches it
 * with (each case knows its number), a dozen times over.
 */
__noinline int call_record(long id, __u32 sid, __u32 tgid, __u32 dir);

__noinline int watched_call(long id, __u32 sid, __u32 tgid, __u32 used_uring)
{
	/* The tracepoint's regs: the ones saved at syscall entry (a global
	 * function takes no kernel pointer). */
	struct pt_regs *regs = (struct pt_regs *)
		bpf_task_pt_regs(bpf_get_current_task_btf());
	__u8 dir;

	/* A sync call got here only if it may meet a read in flight
	 * (uc_sys_enter asked sync_may_hit). */
	dir = sync_call_dir(id);
	/* mmap and brk are frequent (malloc): only in processes that use
	 * io_uring, which could have memory in flight. */
	if ((id == UC_NR_MMAP || id == UC_NR_BRK) && !used_uring)
		return 0;
	if (id == UC_NR_MADVISE) {
		__u64 advice = UC_REG(regs, dx);

		if (advice != UC_MADV_DONTNEED && advice != UC_MADV_FREE &&
		    advice != UC_MADV_REMOVE)
			return 0;
	}

	call_record(id, sid, tgid, dir);
	return 0;
}

/*
 * The record of a watched call, sent. Global as well: the checks that
 * let a call through leave its number known to the verifier (MMAP, BRK,
 * MADVISE, ...) and its direction, each a state of its own for all that
 * follows; here they are numbers again, and the record is verified once.
 */
__noinline int call_record(long id, __u32 sid, __u32 tgid, __u32 dir)
{
	struct pt_regs *regs = (struct pt_regs *)
		bpf_task_pt_regs(bpf_get_current_task_btf());
	__u32 zero = 0;
	struct uc_call *c;

	collect_process_quiet_ends(tgid);
	/* Provided buffers held now: judged with the call. */
	pbuf_held_process(tgid);
	c = bpf_map_lookup_elem(&call_scratch, &zero);
	if (!c)
		return 0;
	__builtin_memset(c, 0, sizeof(*c));
	fill_hdr(&c->hdr, UC_EV_CALL, tgid);
	c->seq = new_seq();
	c->nr = id;
	c->args[0] = UC_REG(regs, di);
	c->args[1] = UC_REG(regs, si);
	c->args[2] = UC_REG(regs, dx);
	c->args[3] = UC_REG(regs, r10);
	c->args[4] = UC_REG(regs, r8);
	c->args[5] = UC_REG(regs, r9);
	/* brk's one argument is the new break: the old one says what a
	 * shrinking call gives back. */
	if (id == UC_NR_BRK)
		c->args[1] = BPF_CORE_READ(bpf_get_current_task_btf(), mm, brk);
	if (id == UC_NR_IO_URING_REGISTER)
		read_reg_iovecs(c, c->args[1] & ~UC_REG_USE_REGISTERED_RING,
				c->args[2], c->args[3], sid);
	if (dir != UC_DIR_NONE) {
		struct enter_state *es;

		c->dir = dir;
		if (id != UC_NR_GETRANDOM)
			c->channel = fd_channel((int)c->args[0], dir == UC_DIR_SOURCE);
		if (sync_vectored(id))
			read_sync_iovecs(c, id, c->args[1], c->args[2], sid);
		else
			sync_plain_range(c, id);
		/* Its result says how many bytes it moved: wanted at exit. */
		sync_pending_put(id, sid);
		/* The thread followed from now on (reap lag's blocking calls). */
		es = bpf_task_storage_get(&enter_states, bpf_get_current_task_btf(), 0,
					  BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (es && !es->ts && !es->stack_id)
			es->session = sid;	/* created here */
	}
	c->stack_id = capture_stack(sid, tgid);
	ev_output(sid, c, sizeof(*c));
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(uc_sys_enter, struct pt_regs *regs, long id)
{
	struct uc_tracked *state;
	__u32 tgid, sid;

	/* Any call shows where the thread's stack is (stack_frames.bpf.h),
	 * but the process's own teardown (exit_group, the last thread's
	 * exit): the kernel cancels every request then, and left-in-flight
	 * reports those still in flight. */
	if (stack_held_total > 0 && id != UC_NR_EXIT_GROUP &&
	    (id != UC_NR_EXIT ||
	     BPF_CORE_READ(bpf_get_current_task_btf(), signal, live.counter) > 1))
		stack_observe(UC_REG(regs, sp), UC_FRAME_SYSCALL, id);
	switch (id) {
	case UC_NR_IO_URING_ENTER:
		if ((state = current_tracked(&tgid)))
			state->used_uring = 1;
		drops_enter(enter_begins(state), state != NULL, UC_REG(regs, di),
			    UC_REG(regs, si), UC_REG(regs, r10));
		return 0;
	case UC_NR_MMAP:
		/* Only a mapping placed over existing memory releases it
		 * (MAP_FIXED; MAP_FIXED_NOREPLACE fails instead). */
		if (!(UC_REG(regs, r10) & UC_MAP_FIXED)) {
			blocking_begins(id);
			return 0;
		}
		break;
	case UC_NR_READ: case UC_NR_PREAD64: case UC_NR_READV: case UC_NR_PREADV:
	case UC_NR_PREADV2: case UC_NR_RECVFROM: case UC_NR_RECVMSG:
	case UC_NR_GETRANDOM:
		blocking_begins(id);	/* reads are where programs wait */
		break;
	case UC_NR_RECVMMSG:
		blocking_begins(id);
		break;
	case UC_NR_WRITE: case UC_NR_PWRITE64: case UC_NR_WRITEV: case UC_NR_PWRITEV:
	case UC_NR_PWRITEV2: case UC_NR_SENDTO: case UC_NR_SENDMSG: case UC_NR_SENDMMSG:
		blocking_begins(id);
		if (!judge_loads)
			return 0;
		break;
	case UC_NR_BRK:
	case UC_NR_MUNMAP:
	case UC_NR_MREMAP:
	case UC_NR_MADVISE:
	case UC_NR_IO_URING_REGISTER:
	case UC_NR_CLOSE:
	case UC_NR_EXIT:
	case UC_NR_EXIT_GROUP:
	case UC_NR_EXECVE:
	case UC_NR_EXECVEAT:
		break;
	default:
		blocking_begins(id);
		return 0;
	}
	tgid = current_pid_tgid() >> 32;
	state = bpf_map_lookup_elem(&tracked, &tgid);
	if (!state)
		return 0;
	sid = state->session;

	if (id == UC_NR_CLOSE) {
		bool last = false;
		int fd = (int)UC_REG(regs, di);
		__u64 ring = fd_to_ring(fd, &last);

		if (ring && last)
			teardown(sid, tgid, ring, UC_TD_CLOSE, fd);
		return 0;
	}
	if (id == UC_NR_EXECVE || id == UC_NR_EXECVEAT) {
		/* A successful exec cancels every request of the process
		 * (io_uring_task_cancel) before sched_process_exec fires:
		 * judge now; user space keeps it until the exec is known to
		 * have succeeded. */
		if (state->used_uring)
			teardown(sid, tgid, 0, UC_TD_EXEC, 0);
		return 0;
	}
	if (id == UC_NR_EXIT_GROUP ||
	    (id == UC_NR_EXIT &&
	     BPF_CORE_READ(bpf_get_current_task_btf(), signal, live.counter) == 1)) {
		if (state->state != UC_TRACKED_TEARING_DOWN) {
			state->state = UC_TRACKED_TEARING_DOWN;
			teardown(sid, tgid, 0, UC_TD_EXIT, (int)UC_REG(regs, di));
		}
		return 0;
	}
	if (sync_call_dir(id) != UC_DIR_NONE) {
		__u64 lo, hi;

		/* Only when a read in flight may share its bytes: judged
		 * here (bpf/sync_calls.bpf.h), and most calls need no
		 * record at all. The bytes are read here, where regs is a
		 * pointer the verifier knows: plain loads, no helper. */
		if (!state->used_uring)
			return 0;
		sync_call_bytes(regs, id, &lo, &hi);
		if (!sync_may_hit(tgid, sid, id, lo, hi))
			return 0;
	}
	watched_call(id, sid, tgid, state->used_uring);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(uc_sys_exit, struct pt_regs *regs, long ret)
{
	long id = UC_REG(regs, orig_ax);
	struct enter_state *es = NULL;
	struct uc_call_ret *e;
	struct uc_tracked *t;
	bool sync = false;
	__u32 tgid;

	if (id == UC_NR_IO_URING_ENTER) {
		drops_exit();
		return 0;
	}
	es = bpf_task_storage_get(&enter_states, bpf_get_current_task_btf(), 0, 0);
	blocking_ends(es, id);
	if (sync_pending_n > 0)
		sync = sync_pending_take(id);	/* its record was sent at entry */
	if (!sync && id != UC_NR_MUNMAP && id != UC_NR_MREMAP && id != UC_NR_MADVISE &&
	    id != UC_NR_MMAP && id != UC_NR_BRK &&
	    id != UC_NR_EXECVE && id != UC_NR_EXECVEAT)
		return 0;
	if (id == UC_NR_MMAP && !(UC_REG(regs, r10) & UC_MAP_FIXED))
		return 0;
	if (!(t = current_tracked(&tgid)))
		return 0;
	if ((id == UC_NR_MMAP || id == UC_NR_BRK) && !t->used_uring)
		return 0;
	/* Only a failed exec returns here in the process that made it. */
	if ((id == UC_NR_EXECVE || id == UC_NR_EXECVEAT) && (ret >= 0 || !t->used_uring))
		return 0;
	e = ev_reserve(t->session, sizeof(*e), UC_EV_CALL_RET);
	if (!e)
		return 0;
	fill_hdr(&e->hdr, UC_EV_CALL_RET, tgid);
	e->nr = id;
	e->pad = 0;
	e->ret = ret;
	__builtin_memset(e->msg_len, 0, sizeof(e->msg_len));
	if (id == UC_NR_RECVMMSG || id == UC_NR_SENDMMSG) {
		/* what each message moved: its msg_len, written by the call */
		__u64 msgvec = UC_REG(regs, si);

		for (int i = 0; i < UC_MMSG_MAX; i++) {
			if (i >= ret)
				break;
			bpf_probe_read_user(&e->msg_len[i], sizeof(e->msg_len[i]),
					    (void *)(msgvec + i * UC_MMSG_SIZE + UC_MMSG_LEN_OFF));
		}
	}
	ev_submit(t->session, e);
	return 0;
}

SEC("tp_btf/io_uring_register")
int BPF_PROG(uc_register, void *ring, unsigned int opcode, unsigned int nr_files,
	     unsigned int nr_bufs, long ret)
{
	struct uc_register *e;
	struct uc_tracked *t;
	__u32 tgid;

	if (!(t = current_tracked(&tgid)))
		return 0;
	e = ev_reserve(t->session, sizeof(*e), UC_EV_REGISTER);
	if (!e)
		return 0;
	fill_hdr(&e->hdr, UC_EV_REGISTER, tgid);
	e->ctx = (__u64)ring;
	e->opcode = opcode;
	e->ret = ret;
	ev_submit(t->session, e);
	return 0;
}

/* A fatal signal with the default action is about to end the process;
 * io_uring cancels its requests during exit, so judge now. */
SEC("tp_btf/signal_deliver")
int BPF_PROG(uc_signal_deliver, int sig, struct kernel_siginfo *info,
	     struct k_sigaction *ka)
{
	__u32 tgid = current_pid_tgid() >> 32;
	struct uc_tracked *state;

	/* The interrupted stack pointer, before the handler's frame; not a
	 * signal with the default action (a fatal one is a teardown, as
	 * exit_group is: see uc_sys_enter). */
	if (stack_held_total > 0 && uc_read_u64((char *)ka + UC_SA_HANDLER_OFF) != 0)
		stack_observe(UC_REG(bpf_task_pt_regs(bpf_get_current_task_btf()), sp),
			      UC_FRAME_SIGNAL, sig);
	state = bpf_map_lookup_elem(&tracked, &tgid);
	if (!state || state->state == UC_TRACKED_TEARING_DOWN)
		return 0;
	if (uc_read_u64((char *)ka + UC_SA_HANDLER_OFF) != 0)	/* not SIG_DFL */
		return 0;
	switch (sig) {
	case 17: case 18: case 23: case 28:	/* CHLD CONT URG WINCH: ignored */
	case 19: case 20: case 21: case 22:	/* STOP TSTP TTIN TTOU: stop */
		return 0;
	}
	state->state = UC_TRACKED_TEARING_DOWN;
	teardown(state->session, tgid, 0, UC_TD_SIGNAL, sig);
	return 0;
}

#endif /* __SYSCALLS_BPF_H */
