/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sync-overlap: plain system calls that store into user memory (read,
 * pread64, readv, preadv, preadv2, recvfrom, recvmsg, recvmmsg,
 * getrandom) or load from it (write, pwrite64, writev, pwritev, pwritev2,
 * sendto, sendmsg, sendmmsg),
 * sent to user space with their ranges and their channel
 * (bpf/channels.bpf.h) to be judged against the in-flight requests, as
 * the overlap rule judges two requests: a store against any in-flight
 * request's bytes, a load against an in-flight read's bytes unless the
 * load goes into the pipe or socket the READ waits on, which orders them
 * by the data flow (liburing's tests feed a READ's pipe from that READ's
 * own buffer). A store from the pipe a WRITE waits to send into is no
 * such pair: a WRITE still in flight when the call runs waits for room,
 * so the call gets the pipe's older bytes.
 *
 * Cost: these calls are the most frequent on any machine. Every one pays
 * the tracked-process lookup and, in a process that uses io_uring, a
 * visit of its rings. The verdict that nothing can collide is the
 * kernel's: each ring keeps the span of its in-flight requests' ranges
 * (ring_info.mem_lo/mem_hi) and of its in-flight reads' alone
 * (sink_lo/sink_hi, bpf/heap_bounds.bpf.h), and a plain call (read,
 * pread64, recvfrom, getrandom, against the first: a store meets a
 * write's bytes too; write, pwrite64, sendto when loads are judged,
 * against the second) whose bytes lie outside every span of its process
 * is cleared here: no record, no stack capture (counted:
 * UC_STAT_SYNC_CLEARED). Only a call that reaches a span, or meets a
 * held provided buffer, pays for a record and a stack, and user space
 * judges it against the ranges themselves, as before. The spans cover
 * every range user space holds for the process's in-flight reads (the
 * same records fill both), so clearing loses no finding; a span only
 * widens while memory is in flight, so it may send a call that meets
 * none (user space then stays silent). A span that is the whole address
 * space (a read whose ranges did not fit its record, a buffer-select
 * read with ranges) and the vectored and message calls, whose ranges
 * are not read at entry, are sent as before and counted
 * (UC_STAT_SYNC_UNINDEXED). recvmmsg/sendmmsg: their first UC_MMSG_MAX (64)
 * messages, each judged on the bytes it moved (its msg_len at return);
 * messages moved beyond them, and messages with more than UC_MMSG_IOV_MAX
 * iovecs, are counted and printed at exit (checker/rules/calls.c).
 */
#ifndef __SYNC_CALLS_BPF_H
#define __SYNC_CALLS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "uringcheck.h"
#include "fixed_layout.bpf.h"
#include "session.bpf.h"
#include "iovecs.bpf.h"
#include "provided_buffers.bpf.h"

/* Loads are judged only where a waiting request's channel is seen
 * (io_uring_poll_arm and io_uring_queue_async_work take the request):
 * without it, a load ordered by the data flow would look like a race. */
const volatile bool judge_loads = false;

/* UC_DIR_SINK: the call stores into the memory; SOURCE: it loads. */
static __always_inline __u8 sync_call_dir(long id)
{
	switch (id) {
	case UC_NR_READ: case UC_NR_PREAD64: case UC_NR_READV: case UC_NR_PREADV:
	case UC_NR_PREADV2: case UC_NR_RECVFROM: case UC_NR_RECVMSG:
	case UC_NR_RECVMMSG: case UC_NR_GETRANDOM:
		return UC_DIR_SINK;
	case UC_NR_WRITE: case UC_NR_PWRITE64: case UC_NR_WRITEV: case UC_NR_PWRITEV:
	case UC_NR_PWRITEV2: case UC_NR_SENDTO: case UC_NR_SENDMSG: case UC_NR_SENDMMSG:
		return judge_loads ? UC_DIR_SOURCE : UC_DIR_NONE;
	}
	return UC_DIR_NONE;
}

static __always_inline bool sync_vectored(long id);

/* What a sync call's visit of its process's rings found. */
#define SYNC_MAY_HIT	1u	/* send it: user space judges */
#define SYNC_UNINDEXED	2u	/* ... because nothing narrower was known */
#define SYNC_SPANNED	4u	/* memory was in flight: the spans cleared it */

struct sync_probe {
	__u32 tgid;
	__u32 found;		/* SYNC_* */
	__u64 lo, hi;		/* its bytes [lo, hi); 0, ~0: unknown */
	bool store;		/* it stores (read-family): any request's bytes
				 * are its partners, else only a read's */
	__u64 pick;	/* the process's rings */
};

/* The call's bytes [lo, hi) from its registers at entry: direct loads
 * through the tracepoint's own pt_regs (a pointer the verifier knows), so
 * the caller reads them before any call and passes numbers on. 0, ~0:
 * unknown (the vectored and message calls, whose ranges are in user
 * memory and not read at entry). */
static __always_inline void sync_call_bytes(const struct pt_regs *regs, long id,
					    __u64 *lo, __u64 *hi)
{
	__u64 len;

	*lo = 0;
	*hi = ~0ULL;
	if (sync_vectored(id))
		return;
	if (id == UC_NR_GETRANDOM) {
		*lo = UC_REG(regs, di);
		len = UC_REG(regs, si);
	} else {
		*lo = UC_REG(regs, si);
		len = UC_REG(regs, dx);
	}
	*hi = *lo + len;
	if (*hi < *lo)
		*hi = ~0ULL;	/* wraps: to the top */
}

static long sync_ring_step(__u64 i, struct sync_probe *p)
{
	struct ring_info *ri;
	__u64 ctx;

	if (!ring_pick_slot(p->pick, &i))
		return 0;
	ri = ring_at(i, &ctx);
	if (!ri || ri->tgid != p->tgid)
		return 0;
	if (ri->mem_inflight > 0) {
		/* The same partners user space judges it against
		 * (checker/rules/calls.c, sync_hit): a store meets any
		 * request's bytes (a write's too: it may not have copied
		 * them out yet), a load only a read's. */
		__u64 lo = p->store ? ri->mem_lo : ri->sink_lo;
		__u64 hi = p->store ? ri->mem_hi : ri->sink_hi;

		if (lo < p->hi && p->lo < hi) {
			p->found = SYNC_MAY_HIT;
			if ((!lo && hi == ~0ULL) || (!p->lo && p->hi == ~0ULL))
				p->found |= SYNC_UNINDEXED;
			return 1;
		}
		p->found = SYNC_SPANNED;
	}
	/* A held provided buffer is sent now (pbuf_held_ring), and the call
	 * with it: user space judges the call against the buffer. */
	if (ri->pbuf_watched && pbuf_held_ring(ri, ctx)) {
		p->found = SYNC_MAY_HIT;
		return 1;
	}
	return 0;
}

/*
 * May the sync call @id of process @tgid (its registers at @regs) store
 * into or load from the bytes of a read in flight on one of its rings, or
 * of a provided buffer held right now? Requests that hold no memory
 * (polls, timeouts) cannot collide with a call: liburing's poll-many
 * reads a pipe 500,000 times beside 5,000 armed polls, and judging each
 * read cost it 2.8x its plain time. A load (write, send) cannot collide
 * with writes and sends in flight: it is judged against reads only; a
 * store against every request holding memory (checker/rules/calls.c,
 * sync_hit).
 */
/* Global, with its probe in a frame of its own: inlined, the probe sat in
 * watched_call's frame, on sys_enter's deepest call chain (a recvmmsg's
 * iovecs), and 6.1's verifier refused the chain's combined stack (544
 * bytes of 512). Numbers only (a global function takes no kernel
 * pointer): the call's bytes [@lo, @hi) come read (sync_call_bytes), so
 * no register is read through a helper here. */
__noinline int sync_may_hit(__u32 tgid, __u32 sid, __u64 id, __u64 lo, __u64 hi)
{
	struct sync_probe p = { .tgid = tgid, .lo = lo, .hi = hi,
				.store = sync_call_dir(id) == UC_DIR_SINK };

	bpf_loop(ring_pick_init(&p.pick, tgid), sync_ring_step, &p, 0);
	if (!(p.found & SYNC_MAY_HIT)) {
		/* Counted only where memory was in flight: a process whose
		 * rings are idle is not judged at all, as before. */
		if (p.found & SYNC_SPANNED)
			stat_inc(sid, UC_STAT_SYNC_CLEARED);
		return false;
	}
	if (p.found & SYNC_UNINDEXED)
		stat_inc(sid, UC_STAT_SYNC_UNINDEXED);
	return true;
}

/* The ranges of a vectored or message call, into @c (inline, then
 * continuation records). Global: verified once, alone. */
__noinline int read_sync_iovecs(struct uc_call *c, __u32 nr, __u64 arg1, __u64 arg2,
				__u32 sid)
{
	struct uc_range *uvec = (struct uc_range *)arg1;
	__u64 n = arg2;

	if (!c)
		return 0;
	if (nr == UC_NR_RECVMMSG || nr == UC_NR_SENDMMSG) {
		call_mmsgs(c, arg1, arg2, sid);
		return 0;
	}
	if (nr == UC_NR_RECVMSG || nr == UC_NR_SENDMSG) {
		/* struct user_msghdr: msg_iov at 16, msg_iovlen at 24 */
		struct { __u64 name; __u32 namelen, pad; __u64 iov, iovlen; } m = {};

		if (bpf_probe_read_user(&m, sizeof(m), (void *)arg1))
			return 0;
		uvec = (struct uc_range *)m.iov;
		n = m.iovlen;
	}
	if (!uvec || !n)
		return 0;
	call_iovecs(c, (__u64)uvec, n, sid);
	return 0;
}

/* The plain-buffer calls: (fd, buf, len), getrandom (buf, len). */
static __always_inline void sync_plain_range(struct uc_call *c, long id)
{
	if (id == UC_NR_GETRANDOM) {
		c->ranges[0].addr = c->args[0];
		c->ranges[0].len = c->args[1];
	} else {
		c->ranges[0].addr = c->args[1];
		c->ranges[0].len = c->args[2];
	}
	c->nr_inline = 1;
	c->nr_ranges = 1;
}

static __always_inline bool sync_vectored(long id)
{
	return id == UC_NR_READV || id == UC_NR_WRITEV || id == UC_NR_PREADV ||
	       id == UC_NR_PWRITEV || id == UC_NR_PREADV2 || id == UC_NR_PWRITEV2 ||
	       id == UC_NR_RECVMSG || id == UC_NR_SENDMSG ||
	       id == UC_NR_RECVMMSG || id == UC_NR_SENDMMSG;
}

#endif /* __SYNC_CALLS_BPF_H */
