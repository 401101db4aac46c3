/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An iovec array's data ranges into a record, a submission's (uc_submit)
 * or a system call's (uc_call, bpf/syscalls.bpf.h and sync_calls.bpf.h):
 * the first ones inline, the rest as UC_EV_RANGES continuation records,
 * reserved (and so delivered) before the record that announces them.
 */
#ifndef __IOVECS_BPF_H
#define __IOVECS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "uringcheck.h"
#include "session.bpf.h"
#include "events.bpf.h"

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

/* An iovec array's ranges into @c (inline, then continuation records).
 * Global: verified once, not inside each of its two callers. */
__noinline int call_iovecs(struct uc_call *c, __u64 uvec, __u64 nr, __u32 sid)
{
	__u32 ninline;
	int sent;

	if (!c)
		return 0;
	sent = read_iovecs(c->ranges, 0, (struct uc_range *)uvec, nr, c->hdr.tgid, sid,
			   c->seq, &ninline);
	if (sent > 0) {
		c->nr_inline = ninline;
		c->nr_ranges = sent;
	}
	return 0;
}

/* One message's iovecs appended to @c (inline while there is room, then
 * continuation records, which keeps each message's ranges together);
 * how many, or -1. Global: verified once. */
__noinline int call_mmsg_one(struct uc_call *c, __u64 uvec, __u32 nr, __u32 sid)
{
	__u32 before, ninline;
	int total;

	if (!c || !uvec || !nr)
		return 0;
	before = c->nr_inline;
	if (before < UC_INLINE_RANGES) {
		total = read_iovecs(c->ranges, before, (struct uc_range *)uvec, nr,
				    c->hdr.tgid, sid, c->seq, &ninline);
		if (total < 0)
			return -1;
		c->nr_inline = ninline;
		c->nr_ranges += total - before;
		return total - before;
	}
	total = send_iov_rest(uvec, nr, c->hdr.tgid, sid, c->seq);
	c->nr_ranges += total;
	return total;
}

/* recvmmsg/sendmmsg: the iovecs of the first UC_MMSG_MAX messages (the
 * first UC_MMSG_IOV_MAX of each), each message's count in msg_ranges
 * (its bytes moved come at return); what is left out is counted in user
 * space. */
__noinline int call_mmsgs(struct uc_call *c, __u64 msgvec, __u64 vlen, __u32 sid)
{
	if (!c)
		return 0;
	for (int i = 0; i < UC_MMSG_MAX; i++) {
		/* struct user_msghdr: msg_iov at 16, msg_iovlen at 24 */
		struct { __u64 name; __u32 namelen, pad; __u64 iov, iovlen; } m = {};
		int added;

		if (i >= vlen ||
		    bpf_probe_read_user(&m, sizeof(m), (void *)(msgvec + i * UC_MMSG_SIZE)))
			break;
		if (m.iovlen > UC_MMSG_IOV_MAX)
			c->msg_cut++;
		added = call_mmsg_one(c, m.iov, m.iovlen > UC_MMSG_IOV_MAX ? UC_MMSG_IOV_MAX
									     : m.iovlen, sid);
		if (added < 0)
			break;
		c->msg_ranges[i] = added;
		c->nmsg = i + 1;
	}
	return 0;
}

#endif /* __IOVECS_BPF_H */
