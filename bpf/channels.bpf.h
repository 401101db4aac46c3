/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Data channels, for sync-overlap's loads (bpf/sync_calls.bpf.h): a
 * write(2) or send from a buffer an in-flight READ fills is ordered when
 * the READ waits for that very data, i.e. reads from the other end of the
 * pipe or socket pair the call writes to (liburing's tests feed a READ's
 * pipe from the READ's own buffer). The "channel" of an operation is the
 * receiving end of what it moves data through:
 *
 *  - a pipe or FIFO: its struct pipe_inode_info (both ends share it);
 *  - a socket, for a receiver: its struct sock; for a sender on an
 *    AF_UNIX socket: its peer's (unix_sock.peer); other senders:
 *    UC_CHANNEL_UNKNOWN (a TCP peer on loopback may be the very read the
 *    call feeds: such loads are not judged);
 *  - anything else: none (a regular file's READ waits for no writer).
 *
 * A load from a READ's buffer is ordered before the READ's store when
 * both name the same channel, 0 never matching. A request's channel is
 * read when it waits: at io_uring_poll_arm or io_uring_queue_async_work,
 * where the kernel has assigned its file (fixed files included), and sent
 * as a UC_EV_CHANNEL record.
 */
#ifndef __CHANNELS_BPF_H
#define __CHANNELS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "uringcheck.h"
#include "io_uring_access.bpf.h"
#include "untrusted.bpf.h"
#include "fd_file.bpf.h"
#include "session.bpf.h"
#include "tracked.bpf.h"
#include "events.bpf.h"
#include "rings.bpf.h"
#include "inflight.bpf.h"
#include "opcodes.bpf.h"

#define UC_S_IFMT	0170000
#define UC_S_IFIFO	0010000
#define UC_S_IFSOCK	0140000
#define UC_AF_UNIX	1

static __always_inline __u64 file_channel(struct file *f, bool sender)
{
	struct socket *sock;
	struct sock *sk;
	__u16 mode;

	if (!f)
		return 0;
	mode = BPF_CORE_READ(f, f_inode, i_mode);
	if ((mode & UC_S_IFMT) == UC_S_IFIFO)
		return (__u64)BPF_CORE_READ(f, private_data);
	if ((mode & UC_S_IFMT) != UC_S_IFSOCK)
		return 0;
	sock = (struct socket *)BPF_CORE_READ(f, private_data);
	sk = BPF_CORE_READ(sock, sk);
	if (!sk || !sender)
		return (__u64)sk;
	if (BPF_CORE_READ(sk, __sk_common.skc_family) != UC_AF_UNIX)
		return UC_CHANNEL_UNKNOWN;
	return (__u64)BPF_CORE_READ((struct unix_sock *)sk, peer) ?: UC_CHANNEL_UNKNOWN;
}

/* Its mode bits and private data (a pipe's struct pipe_inode_info): two
 * plain loads through an untrusted cast where bpf_rdonly_cast exists,
 * three probe reads before. */
static __always_inline __u16 file_mode(struct file *f, __u64 *priv)
{
	if (btf_id_file) {
		struct file *u = bpf_rdonly_cast(f, btf_id_file);
		struct inode *ino = u->f_inode;

		*priv = (__u64)u->private_data;
		return ino ? ino->i_mode : 0;
	}
	*priv = (__u64)BPF_CORE_READ(f, private_data);
	return BPF_CORE_READ(f, f_inode, i_mode);
}

/* The channel of descriptor @fd of the current process. */
static __always_inline __u64 fd_channel(int fd, bool sender)
{
	return file_channel(fd_file(fd), sender);
}

/* The fixed-file table: since 6.13 an array of io_rsrc_node pointers
 * (file_ptr: FFS_NOWAIT, FFS_ISREG in its low bits); before, an array of
 * struct io_fixed_file (FFS_SCM too, until 6.7) and its length in
 * ctx->nr_user_files. */
#define UC_FFS_MASK	(~7ul)
struct io_fixed_file___old {
	unsigned long file_ptr;
} __attribute__((preserve_access_index));
struct io_file_table___old {
	struct io_fixed_file___old *files;
} __attribute__((preserve_access_index));
struct io_ring_ctx___files {
	struct io_file_table___old file_table;
	unsigned int nr_user_files;
} __attribute__((preserve_access_index));

/* The file at fixed-file index @idx of ring @ctx, or NULL. */
static __always_inline struct file *fixed_file(struct io_ring_ctx *ctx, __u32 idx)
{
	struct io_rsrc_node *node = NULL;
	struct io_rsrc_node **nodes;
	struct io_fixed_file___old *files;
	struct io_ring_ctx___files *old = (void *)ctx;
	__u64 fp = 0;

	if (bpf_core_field_exists(ctx->file_table.data.nodes)) {
		if (idx >= BPF_CORE_READ(ctx, file_table.data.nr))
			return NULL;
		nodes = BPF_CORE_READ(ctx, file_table.data.nodes);
		if (!nodes || bpf_probe_read_kernel(&node, sizeof(node), &nodes[idx]) || !node)
			return NULL;
		fp = BPF_CORE_READ(node, file_ptr);
	} else if (bpf_core_field_exists(old->file_table.files) &&
		   bpf_core_field_exists(old->nr_user_files)) {
		if (idx >= BPF_CORE_READ(old, nr_user_files))
			return NULL;
		files = BPF_CORE_READ(old, file_table.files);
		if (!files || bpf_probe_read_kernel(&fp, sizeof(fp), &files[idx].file_ptr))
			return NULL;
	}
	return (struct file *)(fp & UC_FFS_MASK);
}

/*
 * The pipe a READ/READV/WRITE/WRITEV request moves data through, at its
 * submission (the overlap rule's "write feeds the read" pairs,
 * checker/rules/overlap.c): the kernel assigns the file only at issue, so
 * the descriptor is looked up here, in the submitter's table or the
 * ring's fixed-file table. Pipes only: a pipe's bytes come out in the
 * order they went in, and nothing but its writers put them there.
 * Global: verified once.
 */
__noinline int submit_pipe(struct uc_submit *s, __s32 fd, __u32 fixed)
{
	struct file *f;
	__u64 priv;
	__u16 mode;

	if (!s || fd < 0)
		return 0;
	if (fixed)
		f = fixed_file((struct io_ring_ctx *)s->ctx, fd);
	else
		f = fd_file(fd);	/* io-wq and SQPOLL threads share the table */
	if (!f)
		return 0;
	mode = file_mode(f, &priv);
	if ((mode & UC_S_IFMT) == UC_S_IFIFO)
		s->pipe = priv;
	return 0;
}

/*
 * A request waits (poll armed, or punted to io-wq): its file is known
 * now. Its channel goes to user space once, for the requests user space
 * judges sync calls against (those holding memory). Global: verified
 * once for both hooks.
 */
__noinline int request_waits(__u64 req, __u64 file, int fd)
{
	int slot = inf_find(req);
	struct inflight_val *v = slot >= 0 ? inf_val(slot) : NULL;
	struct uc_channel *e;
	__u64 ch;

	if (!v || (v->flags & (INF_REPORTED | INF_HOLDS_MEM | INF_CHANNEL)) !=
		  (INF_REPORTED | INF_HOLDS_MEM) ||
	    !session_owned_by(v->session, v->owner))
		return 0;
	/* Queued to io-wq at submission (IOSQE_ASYNC), before the worker
	 * assigned the file: the submitter's descriptor names it. */
	if (file)
		ch = file_channel((struct file *)file, v->flags & INF_SOURCE);
	else if (fd >= 0)
		ch = fd_channel(fd, v->flags & INF_SOURCE);
	else
		return 0;	/* a later wait may know it */
	v->flags |= INF_CHANNEL;
	if (!ch)
		return 0;
	e = ev_reserve(v->session, sizeof(*e), UC_EV_CHANNEL);
	if (!e)
		return 0;
	fill_hdr(&e->hdr, UC_EV_CHANNEL, v->tgid);
	e->seq = v->seq;
	e->channel = ch;
	ev_submit(v->session, e);
	return 0;
}

/* Only requests of tracked rings; the request and its file as plain
 * numbers (copied, the verifier forgets their types: a global function
 * takes no kernel pointer). */
static __always_inline int on_wait(struct io_kiocb *req)
{
	/* Pointers read through an untrusted copy of the argument (no trust
	 * lookups through the kernel's BTF, bpf/untrusted.bpf.h). */
	struct io_kiocb *u = UC_UNTRUSTED(req, btf_id_io_kiocb);
	struct { __u64 req, file; } p, n = {};
	__u64 ring;
	int fd = -1;

	/* Only a request that may hold memory has a channel user space
	 * wants (request_waits): the polls of a poll loop, the fsyncs
	 * punted to io-wq and the like are passed over by opcode alone,
	 * without the ring's and the in-flight table's lookups (liburing's
	 * poll-many arms a million polls). */
	if (!opcode_may_hold(u->opcode))
		return 0;
	ring = (__u64)u->ctx;
	if (!bpf_map_lookup_elem(&rings, &ring))
		return 0;
	p.req = (__u64)req;
	p.file = (__u64)u->file;
	/* No file yet: the SQE's descriptor, unless a fixed-file index or
	 * not the submitter's table (an io-wq or SQPOLL thread). */
	if (!p.file && !(req_flags(req) & UC_IOSQE_FIXED_FILE) &&
	    !(bpf_get_current_task_btf()->flags & UC_PF_IO_WORKER))
		fd = req->cqe.fd;
	bpf_probe_read_kernel(&n, sizeof(n), &p);
	return request_waits(n.req, n.file, fd);
}

SEC("tp_btf/io_uring_poll_arm")
int BPF_PROG(uc_poll_arm, struct io_kiocb *req, int mask, int events)
{
	return on_wait(req);
}

SEC("tp_btf/io_uring_queue_async_work")
int BPF_PROG(uc_async_work, struct io_kiocb *req, int rw)
{
	return on_wait(req);
}

#endif /* __CHANNELS_BPF_H */
