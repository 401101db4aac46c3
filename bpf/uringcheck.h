/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ABI between the BPF programs (bpf/uringcheck.bpf.c) and the checker in
 * user space. Plain __u* types only, no kernel or libc headers: both
 * sides include this file.
 *
 * Data path: the BPF side decides *which* events matter (only processes
 * that descend from the target, only rings those processes created) and
 * extracts the user ranges of each request at submission; user space
 * receives the events in one ordered ring buffer and judges hazards.
 */
#ifndef __URINGCHECK_H
#define __URINGCHECK_H

/*
 * Sessions: every uringcheck instance on the machine is one session of a
 * kernel side they share (checker/shared.c). Each has its own event
 * buffer, counters and settings; the processes it follows carry its id.
 */
#define UC_MAX_SESSIONS		64

/* Value of the "tracked" map (key: tgid). */
#define UC_PROC_RINGS	5	/* rings a process's own list holds */
struct uc_tracked {
	__u32 state;		/* UC_TRACKED, UC_TRACKED_TEARING_DOWN */
	__u32 session;
	__u32 used_uring;	/* it created a ring or entered one: its
				 * teardown has requests to look for */
	__u32 rings_unlisted;	/* its rings open that ring_slots had no room
				 * for: while any, its visits walk every
				 * ring's slot */
	/* Its rings' places in the ring list (bpf/ring_index.bpf.h), slot
	 * + 1; 0: none. Set by the BPF side only. */
	__u64 ring_slots[UC_PROC_RINGS];
};
#define UC_TRACKED		1
#define UC_TRACKED_TEARING_DOWN	2	/* its teardown was reported */

/* Value of the "sessions" map (key: session id), set by its instance. */
struct uc_session_cfg {
	__u64 reap_lag_ns;	/* a CQE ready longer is late; 0: off */
	__u32 stack_bytes;	/* user stack copied per capture; 0: none */
	__u32 owner;		/* pid of the uringcheck instance; 0: free */
	__u32 heap_owners;	/* --heap-alloc-probes: releases arm a watch
				 * (bpf/heap_watch.bpf.h) */
	__u32 pad;
};

/* Ranges carried inline in one submit record; vectored requests with
 * more iovecs send UC_EV_RANGES continuation records. */
#define UC_INLINE_RANGES	4
#define UC_CHUNK_RANGES		16
/* Longest iovec array followed (UIO_MAXIOV); the rest is counted. */
#define UC_MAX_IOVECS		1024

enum uc_event_type {
	UC_EV_RING_CREATE = 1,	/* a tracked process created a ring */
	UC_EV_SUBMIT,		/* the kernel accepted a request */
	UC_EV_RANGES,		/* more ranges of the previous submit */
	UC_EV_DONE,		/* the kernel finished a request */
	UC_EV_FORK,		/* a tracked process forked a new process */
	UC_EV_EXEC,		/* a tracked process replaced its image */
	UC_EV_EXIT,		/* the last thread of a tracked process exited */
	UC_EV_CALL,		/* a watched system call entered */
	UC_EV_CALL_RET,		/* ... and returned */
	UC_EV_REGISTER,		/* io_uring_register finished (ring, result) */
	UC_EV_DROPPED,		/* in flight at the start of a teardown */
	UC_EV_UNREAPED,		/* a ring's state at the start of a teardown */
	UC_EV_TEARDOWN,		/* ends the DROPPED/UNREAPED records before it */
	UC_EV_REAP_LAG,		/* a CQE sat ready longer than the threshold */
	UC_EV_MAPPING,		/* a file mapping of a process (for stacks) */
	UC_EV_PICK,		/* a provided buffer a request holds */
	UC_EV_PROVIDE,		/* IORING_OP_PROVIDE_BUFFERS submitted */
	UC_EV_CHANNEL,		/* the pipe/socket end a waiting request reads */
	UC_EV_HEAP_RELEASE,	/* a glibc malloc chunk given back (free, realloc) */
	UC_EV_FRAME_GONE,	/* a thread's stack pointer rose above a stack
				 * range one of its requests holds */
	UC_EV_HEAP_ALLOC,	/* a watched released chunk handed out again */
	UC_EV__END,
};
#define UC_EV_TYPES		32	/* UC_EV_* fit below this */

/* Largest user-stack copy (see docs/stacks.md); --stack-size picks less. */
#define UC_STACK_BYTES		8192

/* System calls watched (UC_EV_CALL.nr): the x86-64 numbers. */
/* Synchronous calls that store into or load from user memory, judged
 * against in-flight ranges (sync-overlap) */
#define UC_NR_READ		0
#define UC_NR_WRITE		1
#define UC_NR_PREAD64		17
#define UC_NR_PWRITE64		18
#define UC_NR_READV		19
#define UC_NR_WRITEV		20
#define UC_NR_SENDTO		44
#define UC_NR_RECVFROM		45
#define UC_NR_SENDMSG		46
#define UC_NR_RECVMSG		47
#define UC_NR_PREADV		295
#define UC_NR_PWRITEV		296
#define UC_NR_GETRANDOM		318
#define UC_NR_RECVMMSG		299
#define UC_NR_SENDMMSG		307
/* recvmmsg/sendmmsg: the first messages judged, their ranges counted
 * per message (uc_call.msg_ranges) and their lengths at return; the
 * messages a call moved beyond them are counted and printed, not judged
 * (checker/rules/calls.c) */
#define UC_MMSG_MAX		64
#define UC_MMSG_IOV_MAX		255	/* iovecs judged per message (a u8) */
#define UC_MMSG_SIZE		64	/* struct mmsghdr */
#define UC_MMSG_LEN_OFF		56	/* its msg_len */
#define UC_NR_PREADV2		327
#define UC_NR_PWRITEV2		328
#define UC_NR_CLOSE		3
#define UC_NR_MMAP		9	/* only with MAP_FIXED: replaces memory */
#define UC_NR_BRK		12	/* args[1]: the break before the call */
#define UC_NR_IO_URING_ENTER	426
#define UC_NR_MUNMAP		11
#define UC_NR_MREMAP		25
#define UC_NR_MADVISE		28
#define UC_NR_EXIT		60
#define UC_NR_EXIT_GROUP	231
#define UC_NR_IO_URING_REGISTER	427
#define UC_NR_EXECVE		59
#define UC_NR_EXECVEAT		322

/* uc_teardown.reason */
enum uc_teardown_reason {
	UC_TD_EXIT = 1,		/* exit_group(), or exit() of the last thread */
	UC_TD_SIGNAL,		/* a fatal signal is being delivered */
	UC_TD_CLOSE,		/* the last descriptor of a ring is closed */
	UC_TD_EXEC,		/* execve/execveat entered: if it succeeds, the
				 * kernel cancels the process's requests */
};

/* What the request does to its ranges while in flight. */
enum uc_direction {
	UC_DIR_NONE = 0,	/* no user memory held while in flight */
	UC_DIR_SINK = 1,	/* the kernel stores into the ranges */
	UC_DIR_SOURCE = 2,	/* the kernel loads from the ranges */
};

/* liburing's struct io_uring (its ABI since liburing 2.0; checked against
 * <liburing.h> at build time, checker/sqpoll_probes.c): what the SQPOLL
 * publish probe reads (bpf/sqpoll_stacks.bpf.h). sq.khead and sq.ktail
 * are its first two words. */
#define UC_LU_SQE_HEAD		64	/* sq.sqe_head, then sq.sqe_tail */
#define UC_LU_RING_FLAGS	192	/* flags, then ring_fd */

/* uc_submit.flags */
#define UC_SUB_FIXED_BUF	(1u << 0)	/* registered buffer (buf_index) */
#define UC_SUB_BUFFER_SELECT	(1u << 1)	/* provided buffer: no range until
						 * a UC_EV_PICK names it;
						 * buf_index: the group */
#define UC_SUB_VECTORED		(1u << 2)	/* ranges come from an iovec array */
#define UC_SUB_SQPOLL		(1u << 3)	/* submitted by the SQPOLL thread */
#define UC_SUB_IOVEC_FAULT	(1u << 4)	/* iovec array unreadable */
#define UC_SUB_ZC_NOTIF		(1u << 5)	/* buffer held until notification */
#define UC_SUB_DRAIN		(1u << 6)	/* IOSQE_IO_DRAIN */
#define UC_SUB_TAG_ONLY		(1u << 7)	/* holds no memory, sent for its
						 * pointer user_data alone
						 * (user-data-reuse) */
#define UC_SUB_STACK		(1u << 8)	/* an inline range lies in the
						 * submitting thread's own stack
						 * mapping (stack-inflight) */
#define UC_SUB_SQ_UNPUBLISHED	(1u << 9)	/* SQPOLL, no stack: calls into
						 * liburing were seen publishing
						 * SQEs of its ring, none this
						 * one (bpf/sqpoll_stacks.bpf.h) */

/* uc_done.how */
enum uc_done_how {
	UC_DONE_CQE = 1,	/* posted a CQE (io_uring_complete) */
	UC_DONE_LISTED,		/* found on the ring's completion batch or
				 * free stack: CQE skipped or overflowed */
	UC_DONE_NOTIF,		/* zero-copy notification finished */
	UC_DONE_REUSED,		/* its slot was reused by a new request */
	UC_DONE_CHAIN,		/* a later member of its link chain ended */
	UC_DONE_OVERFLOW,	/* its CQE went to the overflow list */
};

/* Counters in the per-CPU "stats" array; user space sums them. */
enum uc_stat {
	UC_STAT_RINGBUF_LOST,	/* events dropped: ring buffer full */
	UC_STAT_INFLIGHT_FULL,	/* requests not tracked: table full */
	UC_STAT_IOVECS_TRUNC,	/* iovecs beyond UC_MAX_IOVECS */
	UC_STAT_IOVEC_FAULT,	/* iovec arrays BPF could not read */
	UC_STAT_WALK_TRUNC,	/* teardown: free list longer than walked */
	UC_STAT_RINGS_FULL,	/* rings not tracked: table full */
	UC_STAT_PROCS_FULL,	/* processes not followed: table full */
	UC_STAT_DROPPED_TRUNC,	/* teardown records not sent: buffer full */
	UC_STAT_SUBMITS,	/* requests seen at submission */
	UC_STAT_DONES,		/* requests seen finishing */
	UC_STAT_OVERFLOW_UNMATCHED, /* overflowed CQEs not matched to their
				 * request at once (found at teardown) */
	UC_STAT_TASK_STORAGE,	/* per-thread state not created (7.x can
				 * refuse from a tracepoint): that thread's
				 * requests are stamped one by one */
	UC_STAT_PROCS_NS_BELOW,	/* processes not followed: in a PID namespace
				 * below uringcheck's (bpf/pidns.bpf.h) */
	UC_STAT_OPS_UNJUDGED,	/* requests of opcodes that hold user memory
				 * the checker reads no range of, or newer
				 * than lib/opcodes.def */
	UC_STAT_ENDS_UNSEEN,	/* CQEs of a followed process's requests never
				 * seen submitted: attached, the requests in
				 * flight at the attach (not judged) */
	UC_STAT_STACK_UNKNOWN,	/* requests holding memory whose submitting
				 * thread's own stack is not known (started
				 * before it was followed, SQPOLL, io-wq):
				 * stack-inflight does not judge them */
	UC_STAT_SYNC_CLEARED,	/* sync calls cleared in the kernel while
				 * memory was in flight: no in-flight read's
				 * span reaches their bytes
				 * (bpf/sync_calls.bpf.h), no record sent */
	UC_STAT_SYNC_UNINDEXED,	/* sync calls sent because the kernel could
				 * not narrow them: a span that is the whole
				 * address space, or a vectored call */
	UC_STAT_SYNC_UNKEPT,	/* sync calls whose return could not be
				 * waited for (their mark's window full:
				 * bpf/syscalls.bpf.h): not judged */
	UC_STAT_RING_VISITS_ALL, /* visits of one process's rings that
				 * walked every ring's slot: it had more
				 * than UC_PROC_RINGS rings, or a ring could
				 * not be listed as its own */
	UC_STAT__COUNT,
};

/*
 * Per session, what its event buffer could not take (the "session_losses"
 * array, mapped by user space: read without a system call).
 *
 * A lost record is not a lost fact when the fact is the end of a request
 * user space holds in flight: that end is written to the "lost_ends"
 * table instead (key: struct uc_lost_end_key, value: the buffer's
 * producer position just before the record was tried), which user space
 * drains. A finding whose in-flight request ended at a position before
 * the finding's record is then known false, and one whose request is
 * not there is known true. What could still make a request look in
 * flight when it is not (an end the table had no room for, a lost exit,
 * exec, ring creation or registration) counts in "doubt": a finding
 * whose evidence spans a change of it is confirmed against the in-flight
 * table itself, or withheld.
 */
struct uc_session_losses {
	__u64 events;		/* records lost, every type */
	__u64 ends_recorded;	/* lost DONE records written to lost_ends */
	__u64 doubt;		/* losses that may hide an end (see above) */
	__u64 by_type[UC_EV_TYPES];	/* records lost, by UC_EV_* */
};

struct uc_lost_end_key {
	__u64 seq;
	__u32 session;
	__u32 pad;
};

/*
 * The in-flight table (bpf/inflight.bpf.h): two arrays, keys (a request's
 * struct io_kiocb address, 0: free) and values. User space maps both to
 * confirm that a request is still in flight (checker/evidence.c).
 */
#define UC_INF_WINDOW	16		/* slots a key may live in from home */

/*
 * The keys are stored in chunks of up to UC_INF_CHUNK_MAX keys, one array
 * value each (a value is at most KMALLOC_MAX_SIZE, 4 MiB), so that a
 * window's sixteen slots are one lookup, not sixteen. A window wraps
 * within its chunk: with one chunk (up to --max-inflight=262144) that is
 * the whole table.
 */
#define UC_INF_CHUNK_MAX	(1u << 19)

static inline __u32 uc_inf_home(__u64 key, __u32 mask)
{
	/* multiplicative hashing spreads the slab-aligned addresses */
	return (__u32)((key * 0x9E3779B97F4A7C15ULL) >> 32) & mask;
}

/* Slot @i of the window at @home (chunk_mask: keys a chunk - 1). */
static inline __u32 uc_inf_slot(__u32 home, __u32 i, __u32 chunk_mask)
{
	return (home & ~chunk_mask) | ((home + i) & chunk_mask);
}

struct uc_inflight {
	__u64 seq;
	__u64 ctx;
	__u64 user_data;
	__u64 ts;			/* submitted */
	__u32 tgid, tid;		/* submitter */
	__u32 flags;			/* INF_* */
	__u8 opcode;
	__u8 session;			/* the submitter's session */
	__u16 bgid;			/* buffer-select: its group */
	__u64 stack_id;			/* submission stack, 0: none */
	__u32 owner;			/* ... and the instance holding it then */
	/* The link-chain member before it (slot + 1, 0: none) and that
	 * member's seq: a request ends only after the one before it in its
	 * chain, so its end is also theirs (how a CQE-skipping member that
	 * finished silently is known to have finished). */
	__u32 prev_slot;
	__u64 prev_seq;
};

struct uc_range {
	__u64 addr;
	__u64 len;		/* same layout as struct iovec */
};

struct uc_hdr {
	__u32 type;
	__u32 tgid;		/* process (address space) */
	__u32 tid;		/* thread that ran the hook */
	__u32 pad;
	__u64 ts;		/* bpf_ktime_get_ns() */
};

struct uc_ring_create {
	struct uc_hdr hdr;
	__u64 ctx;
	__s32 fd;
	__u32 setup_flags;
	__u32 sq_entries;
	__u32 cq_entries;
};

struct uc_submit {
	struct uc_hdr hdr;
	__u64 seq;		/* unique per checker run */
	__u64 req;		/* struct io_kiocb *, valid while in flight */
	__u64 ctx;
	__u64 user_data;
	__u64 chain_seq;	/* seq of the link-chain head, 0 = no chain */
	__u8 opcode;
	__u8 sqe_flags;
	__u8 direction;		/* enum uc_direction */
	__u8 nr_inline;		/* ranges[] used */
	__u16 buf_index;
	__u16 flags;		/* UC_SUB_* */
	__u32 nr_ranges;	/* total ranges incl. continuation records */
	__u32 pad;
	__u64 stack_id;		/* capture of the submitting call, 0: none */
	__u64 pipe;		/* a READ/WRITE(V) on a pipe: the pipe (its
				 * pipe_inode_info), 0: none or not known */
	struct uc_range ranges[UC_INLINE_RANGES];
};

struct uc_ranges {
	struct uc_hdr hdr;
	__u64 seq;
	__u32 nr;
	__u32 pad;
	struct uc_range ranges[UC_CHUNK_RANGES];
};

struct uc_done {
	struct uc_hdr hdr;
	__u64 seq;
	__u64 ctx;
	__s32 res;
	__u32 cflags;
	__u32 how;		/* enum uc_done_how */
	__u32 pad;
};

/*
 * A provided buffer held by request @seq (bpf/provided_buffers.bpf.h):
 * seen at the CQE that hands it back, or held before it (at a watched
 * call of the process or a new request on the ring, sent before that
 * record). Legacy groups carry no address: user space has it from the
 * UC_EV_PROVIDE records.
 */
#define UC_PICK_CQE		(1u << 0)	/* at the CQE returning it */
#define UC_PICK_HELD		(1u << 1)	/* held now, before its CQE */
#define UC_PICK_RING		(1u << 2)	/* a buffer ring's entry */
#define UC_PICK_LEGACY		(1u << 3)	/* a PROVIDE_BUFFERS group */
#define UC_PICK_UNRESOLVED	(1u << 4)	/* its entry could not be read */
#define UC_PICK_REPROVIDED	(1u << 5)	/* its memory is available to the
						 * kernel again (ring position
						 * again_pos) before this CQE */
#define UC_PICK_MORE		(1u << 6)	/* multishot: the request goes on */
#define UC_PICK_RELEASED	(1u << 7)	/* UC_PICK_HELD: held no more, unused */
#define UC_PICK_INC		(1u << 8)	/* an incremental ring's: the range is
						 * the part this CQE consumed (len 0:
						 * none) */
#define UC_PICK_BUNDLE		(1u << 9)	/* a bundle's buffer after its first */
#define UC_PICK_DOUBLE		(1u << 10)	/* request other_seq holds this
						 * buffer id too, right now */

struct uc_pick {
	struct uc_hdr hdr;
	__u64 seq;		/* the request */
	__u64 ctx;
	__u64 user_data;
	__u64 addr;		/* 0: legacy or unresolved */
	__u32 len;
	__s32 res;		/* UC_PICK_CQE: the CQE's result */
	__u16 bgid;
	__u16 bid;
	__u32 flags;		/* UC_PICK_* */
	__u32 again_pos;	/* UC_PICK_REPROVIDED: where, in the ring */
	__u32 avail;		/* ... entries available to the kernel then */
	__u64 other_seq;	/* UC_PICK_DOUBLE: the other holder */
};

/* Request @seq waits on a pipe or socket: the receiving end it moves
 * data through (bpf/channels.bpf.h), for sync-overlap's ordering. */
struct uc_channel {
	struct uc_hdr hdr;
	__u64 seq;
	__u64 channel;
};
/* A socket sender whose peer is not known (not AF_UNIX): the data may
 * reach any read, so its loads are not judged. */
#define UC_CHANNEL_UNKNOWN	1

/* IORING_OP_PROVIDE_BUFFERS: @nbufs buffers of @len bytes from @addr,
 * ids from @bid, into group @bgid of ring @ctx. */
struct uc_provide {
	struct uc_hdr hdr;
	__u64 seq;
	__u64 ctx;
	__u64 addr;
	__u32 len;
	__u32 nbufs;
	__u16 bgid;
	__u16 bid;
	__u32 pad;
};

/* A watched system call: nr, its six arguments; for io_uring_register
 * buffer registrations also the iovecs (inline + UC_EV_RANGES, by seq). */
struct uc_call {
	struct uc_hdr hdr;
	__u64 seq;
	__u64 args[6];
	__u32 nr;
	__u32 reg_offset;	/* BUFFERS_UPDATE: first index replaced */
	__u32 reg_nr;		/* buffers registered / replaced */
	__u32 nr_ranges;	/* iovecs sent (inline + continuation) */
	__u8 nr_inline;
	__u8 dir;		/* a sync call: UC_DIR_SINK (it stores), SOURCE */
	__u8 nmsg;		/* recvmmsg/sendmmsg: messages judged */
	__u8 msg_ranges[UC_MMSG_MAX];	/* ... each one's ranges, in order */
	__u8 msg_cut;		/* ... of them, with iovecs past UC_MMSG_IOV_MAX */
	__u32 pad;
	__u64 channel;		/* a sync call: its pipe/socket end, 0: none */
	__u64 stack_id;		/* where the call was made, 0: none */
	struct uc_range ranges[UC_INLINE_RANGES];
};

struct uc_call_ret {
	struct uc_hdr hdr;
	__u32 nr;
	__u32 pad;
	__s64 ret;
	__u32 msg_len[UC_MMSG_MAX];	/* recvmmsg/sendmmsg: bytes moved per
					 * message, the first ret of them */
};

struct uc_register {
	struct uc_hdr hdr;
	__u64 ctx;
	__u32 opcode;
	__s32 ret;
};

/* A request in flight when its ring or process was torn down. */
struct uc_dropped {
	struct uc_hdr hdr;	/* hdr.tid: the submitter */
	__u64 seq;
	__u64 ctx;
	__u64 user_data;
	__u64 submit_ts;
	__u64 teardown;		/* the UC_EV_TEARDOWN it belongs to */
	__u64 stack_id;		/* its submission's stack, 0: none */
	__u8 opcode;
	__u8 holds_mem;		/* it holds user memory (a range) */
	__u8 pad[6];
};

#define UC_UNREAPED_SHOWN	4

/* A ring's completion side at a teardown: what the program left
 * unconsumed, and what the kernel itself dropped (io_rings counters). */
struct uc_unreaped {
	struct uc_hdr hdr;
	__u64 ctx;
	__u64 teardown;
	__u32 cq_head;		/* as the program left it */
	__u32 cq_tail;		/* as the kernel left it */
	__u32 overflowed;	/* CQEs still waiting on the overflow list */
	__u32 overflow_capped;	/* ... at least: the list was longer */
	__u32 sq_dropped;	/* the ring's shared drop counter: the kernel
				 * counts SQEs it discarded there, but the
				 * program may write it */
	__u32 cq_overflow;	/* CQEs the kernel could not post at all */
	/* The first unconsumed CQEs, as the program would have read them;
	 * opcode + 1 of the request that posted it, 0: not known. */
	struct {
		__u64 user_data;
		__s32 res;
		__u16 opcode1;
		__u16 pad;
	} cqes[UC_UNREAPED_SHOWN];
	__u32 ncqes;
	__u32 sq_dropped_kernel;	/* SQEs seen discarded by the kernel
					 * itself (bpf/sq_drops.bpf.h) */
};

struct uc_teardown {
	struct uc_hdr hdr;
	__u64 id;
	__u64 ctx;		/* UC_TD_CLOSE: the ring; else 0 (whole process) */
	__u32 reason;		/* enum uc_teardown_reason */
	__s32 detail;		/* signal number, or the closed fd */
	__u64 stack_id;		/* where the process was: the close, exit or
				 * exec call, or where the signal took it */
};

struct uc_reap_lag {
	struct uc_hdr hdr;
	__u64 ctx;
	__u64 user_data;	/* of the CQE at the head */
	__u64 lag_ns;		/* posted -> seen consumed (upper bound) */
	__u64 lag_min_ns;	/* posted -> last seen unconsumed (lower bound) */
	__u32 pending;		/* CQEs ready behind it when first seen late */
	__u32 pad;
	__u64 reap_stack_id;	/* uprobe mode: the liburing call, 0: none */
	/* the longest other system call a thread of the process was in while
	 * the CQE waited (the part of it that overlapped): nr -1 if none */
	__s32 blocked_nr;
	__u32 blocked_tid;
	__u64 blocked_ns;
};

/*
 * A thread's user registers and the bytes of its stack from sp upward,
 * for offline DWARF unwinding (symbolize/): data[len] is used.
 * regs: ip, sp, bp, bx, r12, r13, r14, r15 (symbolize/unwind.h order).
 *
 * Captures do not travel in the event buffer: they are written to the
 * session's stack store (bpf/stacks.bpf.h: its instance's array in
 * stack_stores), UC_STACK_SLOTS of them in turn (the session's capture
 * id N in slot (N - 1) % UC_STACK_SLOTS), which user space maps and
 * copies from when a record names the id. A capture is 8 KiB, a record a few dozen
 * bytes: in the event buffer they were most of its traffic, and when it
 * overflowed, the ends and submissions were lost with them. Now a slow
 * reader loses at worst the oldest stacks. id is written last (0 while a
 * slot is being rewritten), so a reader that sees the same id before and
 * after its copy has a whole capture.
 */
#define UC_STACK_SLOTS		4096
struct uc_stack {
	struct uc_hdr hdr;
	__u64 id;
	__u64 regs[8];
	__u32 len;
	__u32 flags;		/* UC_STACK_CUT */
	__u64 exec_id;		/* the thread's process image (self_exec_id) */
	__u8 data[UC_STACK_BYTES];
};

/*
 * A capture's copy is cut short where its call site's unwind needed no
 * more (stack_bounds): user space unwinds the first capture of each
 * (session, process, ip, sp) it sees and installs the bytes that unwind
 * read, plus a margin. Only a length: every byte copied is still the
 * submitting call's own, so a cut stack is the right stack or a
 * shorter one, never another call's. UC_STACK_CUT says the copy stopped
 * at such a bound (before the stack's end and --stack-size); an unwind
 * that then runs off the copy says so in the report (docs/stacks.md).
 */
#define UC_STACK_CUT		1
struct uc_stack_bound_key {
	__u32 session;
	__u32 tgid;
	__u64 ip;
	__u64 sp;
};

/*
 * What user space learned of a call site (stack_bounds, keyed as above):
 * the bound, and the site's deciders when it found them
 * (symbolize/unwind_deciders.h): the stack words and callee-saved
 * registers that decide its frames. A capture there whose deciders equal
 * these, in the same process image, has the same frames as the capture
 * they were learned from: it takes @id, a capture user space keeps, and
 * copies nothing. The words are compared in a per-CPU copy of
 * [sp, sp + span): hot memory, where a new capture's slot is cold.
 */
#define UC_SITE_WORDS		24
/* Ids of kept site captures: never a store id (a session's count);
 * bits 32-61 are the instance's own (random), 0-31 count its sites. */
#define UC_STACK_SITE_ID	(1ULL << 62)
/* One capture, one call: a site's kept capture is shared by many calls. */
static inline int uc_stack_id_is_call(__u64 id)
{
	return id && !(id & UC_STACK_SITE_ID);
}
struct uc_stack_site {
	__u32 bound;		/* bytes to copy, 0: --stack-size's */
	__u16 nwords;		/* deciders, 0 with no regs: none known */
	__u8 regmask;		/* bit i: regs[i] decides too */
	__u8 pad;
	__u32 span;		/* the deciders lie in [sp, sp + span) */
	__u32 pad2;
	__u64 exec_id;		/* of the capture they were learned from */
	__u64 id;		/* UC_STACK_SITE_ID | n */
	__u64 regs[8];
	__u16 off[UC_SITE_WORDS];	/* from sp, 8-aligned */
	__u64 val[UC_SITE_WORDS];
};

/* One file-backed mapping, sent for a process before its first stack so
 * symbolization does not depend on /proc/PID/maps still existing. The
 * path comes as its dentry names, leaf first, across mount points up to
 * the root of the process's mount namespace: the path the process itself
 * would open, which the host may not see (a container's file system, a
 * tmpfs mounted only in its namespace). dev (the kernel's encoding,
 * major << 20 | minor) and inode are those /proc/PID/maps shows, so the
 * file matches one user space opened through map_files while the
 * process lived. */
#define UC_PATH_NAMES		12
#define UC_NAME_LEN		64
/* A mapping sent at a capture (before v6.7: stacks.bpf.h), one of a
 * process's, not the whole set: used when /proc/PID/maps is gone. */
#define UC_VMA_AT_CAPTURE	4

struct uc_vma_record {
	struct uc_hdr hdr;
	__u64 start, end;
	__u64 offset;		/* file offset mapped at start */
	__u64 inode;
	__u32 dev;		/* of the inode's super block */
	__u32 flags;		/* 1 exec, 2 write, UC_VMA_AT_CAPTURE */
	__u32 nnames;
	__u32 pad;
	char names[UC_PATH_NAMES][UC_NAME_LEN];
};

struct uc_proc {
	struct uc_hdr hdr;	/* hdr.tgid: the new/execing/exiting process */
	__u32 parent_tgid;	/* UC_EV_FORK */
	__s32 exit_code;	/* UC_EV_EXIT: task->exit_code */
};

/*
 * A glibc malloc chunk given back while the process held memory in
 * flight (bpf/heap_release.bpf.h): free, or what a realloc released.
 */
enum uc_heap_how {
	UC_HEAP_FREE = 1,	/* free(chunk) */
	UC_HEAP_REALLOC_MOVED,	/* realloc moved it: all of it released */
	UC_HEAP_REALLOC_SHRUNK,	/* realloc shrank it in place: its tail */
};

struct uc_heap_release {
	struct uc_hdr hdr;
	__u64 chunk;		/* the chunk's user pointer */
	__u64 usable;		/* its usable bytes, from its header */
	__u64 head;		/* the header's size field (flags: low 3 bits) */
	__u64 start, end;	/* the bytes given back */
	__u64 new_ptr;		/* realloc: its result */
	__u64 stack_id;		/* the release's stack, 0: none */
	__u32 how;		/* enum uc_heap_how */
	__u32 watch;		/* its watch (bpf/heap_watch.bpf.h): the slot's
				 * gen << 8 | slot + 1; 0: none,
				 * UC_HEAP_WATCH_FULL: the table was full */
};

/*
 * The released chunks watched for their next owner (bpf/heap_watch.bpf.h):
 * one mappable array value, written by both sides with atomics. A slot is
 * claimed by the kernel (FREE -> CLAIMING -> ARMED) when it sends a
 * release, consumed by it (ARMED -> CONSUMED) when an allocation returns
 * bytes of the chunk, and given back only by the session that got the
 * release (-> FREE), so an index a record names is never reused under it.
 * count[]: slots ARMED per bucket of global tgids (tgid % buckets); an
 * allocation of a process whose bucket is 0 returns at once. held[]:
 * slots each session holds (not FREE), at most UC_HEAP_WATCHES_SESSION,
 * so that one run's many releases leave the others theirs.
 */
#define UC_HEAP_WATCHES		256
#define UC_HEAP_WATCHES_SESSION	64
#define UC_HEAP_WATCH_BUCKETS	64
#define UC_HEAP_WATCH_FULL	0xffffffffU

enum uc_heap_watch_state {
	UC_WATCH_FREE = 0,
	UC_WATCH_CLAIMING,
	UC_WATCH_ARMED,
	UC_WATCH_CONSUMED,
};

struct uc_heap_watch {
	__u64 state;		/* enum uc_heap_watch_state */
	__u64 lo, hi;		/* the bytes released */
	__u32 tgid;		/* global (the kernel's), not uringcheck's view */
	__u32 session;
	__u32 gen;		/* arms of this slot so far (24 bits) */
	__u32 pad;
};

struct uc_heap_watches {
	__u64 count[UC_HEAP_WATCH_BUCKETS];
	__u64 held[UC_MAX_SESSIONS];
	struct uc_heap_watch w[UC_HEAP_WATCHES];
};

/* Which allocation call handed a watched chunk out again. */
enum uc_heap_alloc_fn {
	UC_ALLOC_MALLOC = 1,
	UC_ALLOC_CALLOC,
	UC_ALLOC_REALLOC,
	UC_ALLOC_MEMALIGN,	/* memalign, aligned_alloc */
	UC_ALLOC_POSIX_MEMALIGN,
	UC_ALLOC_VALLOC,	/* valloc, pvalloc */
};

struct uc_heap_alloc {
	struct uc_hdr hdr;
	__u64 ptr;		/* what the call returned */
	__u64 usable;		/* its usable bytes, from its header */
	__u64 stack_id;		/* the allocation's stack, 0: none */
	__u32 watch;		/* the watch it consumed (as the release's) */
	__u32 fn;		/* enum uc_heap_alloc_fn */
};

/*
 * stack-inflight (bpf/stack_frames.bpf.h): a thread that holds requests
 * with ranges in its own stack mapping showed a stack pointer above the
 * lowest of them, outside any sigaltstack, at a point the checker sees.
 * Bytes below sp - UC_RED_ZONE belong to no live frame (the x86-64 ABI
 * lets a leaf function use 128 bytes below its stack pointer).
 */
#define UC_RED_ZONE		128

enum uc_frame_where {
	UC_FRAME_SYSCALL = 1,	/* a system call's entry (nr: its number) */
	UC_FRAME_SIGNAL,	/* a signal's delivery (nr: the signal) */
};

struct uc_frame_gone {
	struct uc_hdr hdr;	/* hdr.tid: the thread */
	__u64 sp;		/* its stack pointer there */
	__u64 lo, hi;		/* its own stack mapping, as last looked up */
	__u64 stack_id;		/* where it was, 0: none */
	__u32 where;		/* enum uc_frame_where */
	__s32 nr;
};

#endif /* __URINGCHECK_H */
