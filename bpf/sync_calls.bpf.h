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
 * the tracked-process lookup; only a process that uses io_uring and has a
 * request holding memory in flight at that moment pays for a record and a
 * stack capture
 * (a process whose rings are idle pays the lookup and a visit of its
 * rings). recvmmsg/sendmmsg: their first UC_MMSG_MAX (64) messages, each
 * judged on the bytes it moved (its msg_len at return); messages moved
 * beyond them, and messages with more than UC_MMSG_IOV_MAX iovecs, are
 * counted and printed at exit (checker/rules/calls.c).
 */
#ifndef __SYNC_CALLS_BPF_H
#define __SYNC_CALLS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "uringcheck.h"
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

/* Does process @tgid have a request holding user memory in flight on any
 * of its rings, or a buffer-select request holding a provided buffer
 * right now? Requests that hold none (polls, timeouts) cannot collide
 * with a call: liburing's poll-many reads a pipe 500,000 times beside
 * 5,000 armed polls, and judging each read cost it 2.8x its plain time. */
static __always_inline bool process_busy(__u32 tgid)
{
	return process_holds_mem(tgid, true);
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
