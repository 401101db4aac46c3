/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Provided buffers (docs/hazards.md, "pbuf"): a request submitted with
 * IOSQE_BUFFER_SELECT holds no memory until the kernel picks a buffer of
 * its group, and no hook fires at the pick. What is seen instead:
 *
 *  - the CQE that hands the buffer back (io_uring_complete, its buffer id
 *    in cflags): the buffer was held up to that moment, so it is judged
 *    then against everything in flight (UC_PICK_CQE);
 *  - the request's own state at the moments a collision would begin: a
 *    watched system call of its process, or a new request on its ring
 *    (req->flags says whether a buffer is picked, req->buf_index or
 *    req->kbuf which one): the buffer is sent as held (UC_PICK_HELD) before
 *    that call's or request's record, and judged with it.
 *
 * A ring buffer's address is read from the ring itself (the kernel's
 * mapping, found through ctx->io_bl_xa by group id): the entry with the
 * buffer id just behind the kernel's head. At the CQE the entries still
 * available to the kernel, from its head to the program's tail, are
 * scanned as well: the same memory there means the program provided it
 * again while the kernel held it (UC_PICK_REPROVIDED). Legacy groups
 * (IORING_OP_PROVIDE_BUFFERS) are resolved by user space from the
 * provide records (UC_EV_PROVIDE), since the kernel frees its copy at
 * the CQE.
 *
 * A bundle's CQE covers several consecutive entries (pbuf_bundle()); an
 * incremental ring's (IOU_PBUF_RING_INC) the piece it consumed
 * (pbuf_resolve()). At a CQE, another watched request holding the same
 * buffer id means the kernel handed one buffer to two (pbuf_double()).
 *
 * Not judged: ring positions further than PBUF_BACK behind the head or
 * PBUF_AHEAD past it, a bundle's buffers past PBUF_BUNDLE, and on 6.1 (no
 * group flags in its BTF; it maps a pinned ring page by page) entries
 * beyond the ring's first page. Each counts as unresolved (printed at
 * the end of the run) or is not looked at: a missed hazard, never a
 * false one.
 */
#ifndef __PROVIDED_BUFFERS_BPF_H
#define __PROVIDED_BUFFERS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "uringcheck.h"
#include "io_uring_access.bpf.h"
#include "session.bpf.h"
#include "events.bpf.h"
#include "rings.bpf.h"
#include "ring_index.bpf.h"
#include "inflight.bpf.h"

/* REQ_F_* and IOBL_* live in anonymous enums: user space reads their
 * values from the kernel's BTF (load/kernel_features.c). */
const volatile __u64 req_buffer_selected = 0;	/* REQ_F_BUFFER_SELECTED */
const volatile __u64 req_buffer_ring = 0;	/* REQ_F_BUFFER_RING */
/* REQ_F_BUFFERS_COMMIT: picked, not yet taken from the ring; 0 before it
 * existed (6.1) */
const volatile __u64 req_buffers_commit = 0;
const volatile __u32 iobl_buf_ring = 0;		/* IOBL_BUF_RING; 0: no flags (6.1) */
const volatile __u32 iobl_inc = 0;		/* IOBL_INC; 0: none */

#define UC_CQE_F_BUFFER		(1u << 0)	/* uapi IORING_CQE_F_BUFFER */
#define UC_CQE_F_MORE		(1u << 1)	/* uapi IORING_CQE_F_MORE */
#define UC_CQE_F_BUF_MORE	(1u << 4)	/* uapi: incremental, not done */
#define UC_CQE_BUFFER_SHIFT	16

#define PBUF_BACK	16	/* ring positions searched behind the head */
#define PBUF_AHEAD	64	/* available entries scanned for a re-provide */
#define PBUF_PAGE_ENTRIES	256	/* 16-byte entries in a 4 KiB page */

/* uapi struct io_uring_buf: fixed by the ABI. The ring's tail overlays
 * the first entry's last two bytes. */
struct pbuf_entry {
	__u64 addr;
	__u32 len;
	__u16 bid;
	__u16 resv;
};
#define PBUF_TAIL_OFFSET	14

/* 6.1-6.8: groups below 64 lived in an array beside the xarray. */
struct io_ring_ctx___io_bl {
	struct io_buffer_list *io_bl;
} __attribute__((preserve_access_index));

/* Before REQ_F_BUFFERS_COMMIT (6.1): a ring buffer picked but not yet
 * taken from the ring keeps its list here; taking it clears it. */
struct io_kiocb___buf_list {
	struct io_buffer_list *buf_list;
} __attribute__((preserve_access_index));

/* Before the rings became mapped regions (6.12 and older): the pages. */
struct io_buffer_list___pages {
	__u16 buf_nr_pages;
} __attribute__((preserve_access_index));

/* Buffer-select requests in flight, by (ring, user_data): a multishot
 * request's CQEs name no request, only its user_data. */
struct pbuf_key {
	__u64 ctx;
	__u64 user_data;
};

struct pbuf_req {
	__u64 req;
	__u64 seq;
	__u32 session;
	__u32 owner;
	__u32 tgid;
	__u16 bgid;
	__u16 held_sent;	/* a held buffer of it went to user space */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);	/* rarely used: not at start-up */
	__uint(max_entries, 8192);
	__type(key, struct pbuf_key);
	__type(value, struct pbuf_req);
} pbuf_reqs SEC(".maps");

/* Rings with a buffer-select request in their watch slots: the syscall
 * path skips its ring walk when there are none. */
__s64 pbuf_watched_total;

/* The entry of xarray @head at @index (xa_load's walk: 64 slots a level,
 * three levels cover the 16-bit group ids). */
static __always_inline __u64 pbuf_xa_load(__u64 entry, __u32 index)
{
	for (int level = 0; level < 4; level++) {
		struct xa_node *node;
		__u8 shift;

		/* xa_is_node(): an internal entry (low bits 10) above 4096 */
		if ((entry & 3) != 2 || entry <= 4096) {
			if (level == 0 && index)
				return 0;	/* a lone entry is index 0 */
			return (entry & 3) == 2 ? 0 : entry;
		}
		node = (struct xa_node *)(entry - 2);
		shift = BPF_CORE_READ(node, shift);
		if (level == 0 && shift < 32 && (index >> shift) > 63)
			return 0;
		entry = (__u64)BPF_CORE_READ(node, slots[(index >> (shift & 31)) & 63]);
	}
	return 0;
}

/* The kernel's struct io_buffer_list of group @bgid on ring @ctx. */
static __always_inline struct io_buffer_list *pbuf_list(struct io_ring_ctx *ctx,
							__u32 bgid)
{
	if (bpf_core_field_exists(struct io_ring_ctx___io_bl, io_bl) && bgid < 64) {
		__u64 arr = (__u64)BPF_CORE_READ((struct io_ring_ctx___io_bl *)ctx, io_bl);

		if (!arr)
			return NULL;
		return (struct io_buffer_list *)
			(arr + bgid * bpf_core_type_size(struct io_buffer_list));
	}
	return (struct io_buffer_list *)
		pbuf_xa_load((__u64)BPF_CORE_READ(ctx, io_bl_xa.xa_head), bgid);
}

struct pbuf_ring {
	__u64 bufs;		/* the entries, kernel address */
	__u32 mask;
	__u16 head;		/* the kernel's */
	__u16 tail;		/* the program's */
	bool first_page;	/* only the first page is mapped contiguously */
	bool inc;		/* IOU_PBUF_RING_INC: consumed piece by piece */
	bool ok;
};

/*
 * A ring group's state, or ok = false (a legacy group). The
 * fields read lie in the struct's first 32 bytes on every kernel (6.1:
 * buf_ring at 8, mask at 24; 6.12 and 6.18: flags ends at 28): one copy
 * instead of one per field, each copy being most of the cost here.
 */
#define PBUF_BL_SPAN	32
#define PBUF_BL_U16(c, field) \
	((c).h[(bpf_core_field_offset(struct io_buffer_list, field) / 2) & \
	       (PBUF_BL_SPAN / 2 - 1)])

static __always_inline void pbuf_ring_read(struct io_buffer_list *bl,
					   struct pbuf_ring *r)
{
	union {
		__u64 q[PBUF_BL_SPAN / 8];
		__u16 h[PBUF_BL_SPAN / 2];
	} c;
	__u32 flags;

	r->ok = false;
	r->inc = false;
	if (!bl || bpf_core_field_offset(struct io_buffer_list, mask) + 2 > PBUF_BL_SPAN ||
	    bpf_probe_read_kernel(&c, sizeof(c), bl))
		return;
	if (iobl_buf_ring) {
		if (bpf_core_field_offset(struct io_buffer_list, flags) + 2 > PBUF_BL_SPAN)
			return;
		flags = PBUF_BL_U16(c, flags);
		if (!(flags & iobl_buf_ring))
			return;
		r->inc = iobl_inc && (flags & iobl_inc);
	} else if (bpf_core_field_exists(struct io_buffer_list___pages, buf_nr_pages)) {
		/* 6.1: a ring group is one with pinned pages */
		if (!BPF_CORE_READ((struct io_buffer_list___pages *)bl, buf_nr_pages))
			return;
		r->first_page = true;
	}
	r->bufs = c.q[(bpf_core_field_offset(struct io_buffer_list, buf_ring) / 8) &
		      (PBUF_BL_SPAN / 8 - 1)];
	r->mask = PBUF_BL_U16(c, mask);
	r->head = PBUF_BL_U16(c, head);
	if (!r->bufs ||
	    bpf_probe_read_kernel(&r->tail, sizeof(r->tail),
				  (void *)(r->bufs + PBUF_TAIL_OFFSET)))
		return;
	r->ok = true;
}

static __always_inline bool pbuf_entry_at(struct pbuf_ring *r, __u32 pos,
					  struct pbuf_entry *e)
{
	pos &= r->mask;
	if (r->first_page && pos >= PBUF_PAGE_ENTRIES)
		return false;
	return !bpf_probe_read_kernel(e, sizeof(*e),
				      (void *)(r->bufs + pos * sizeof(*e)));
}

struct pbuf_search {
	struct pbuf_ring r;
	__u16 bid;
	bool found;
	bool consumed;		/* incremental: the buffer's last piece (its
				 * entry is behind the head), not the piece
				 * at the head */
	__u64 addr;
	__u32 len;
	__u32 again;		/* reprovided: its ring position */
	__u32 pos;		/* found: its ring position */
};

/* Behind the head, nearest first: the entries the kernel took last. */
static long pbuf_back_step(__u64 i, struct pbuf_search *s)
{
	struct pbuf_entry e;

	if (!pbuf_entry_at(&s->r, (__u32)s->r.head - 1 - i, &e))
		return 0;
	if (e.bid != s->bid)
		return 0;
	s->addr = e.addr;
	s->len = e.len;
	s->pos = (__u32)s->r.head - 1 - i;
	s->found = true;
	return 1;
}

/*
 * From the head to the tail: what the kernel may still pick. Read in one
 * or two copies (the ring wraps) into a per-CPU scratch, then compared:
 * a read per entry made this scan most of a CQE's cost (16 available
 * entries: ~0.5 us).
 */
struct pbuf_span {
	/* two copies of <= PBUF_AHEAD entries, at byte offsets the
	 * verifier bounds by the masks below (2047 + 2047) */
	struct pbuf_entry e[4 * PBUF_AHEAD];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pbuf_span);
} pbuf_spans SEC(".maps");

struct pbuf_ahead {
	struct pbuf_span *span;
	__u32 n;
	__u32 found;		/* index + 1 of the first overlap, 0: none */
	__u64 addr, end;
};

static long pbuf_ahead_step(__u64 i, struct pbuf_ahead *a)
{
	struct pbuf_entry *e;

	if (i >= a->n || i >= 2 * PBUF_AHEAD)
		return 1;
	e = &a->span->e[i];
	if (e->len && e->addr < a->end && a->addr < e->addr + e->len) {
		a->found = i + 1;
		return 1;
	}
	return 0;
}

/* Is [addr, addr + len) among the available entries? Sets s->again.
 * Global: its bounds checks, inlined, multiplied the CQE path's states. */
__noinline int pbuf_scan_ahead(struct pbuf_search *s)
{
	__u32 zero = 0, n, start, first, rest;
	__u64 fsz, rsz;
	struct pbuf_ahead a = {};

	if (!s)
		return 0;
	n = (__u16)(s->r.tail - s->r.head);
	start = s->r.head & s->r.mask;
	a.addr = s->addr;
	a.end = s->addr + s->len;
	a.span = bpf_map_lookup_elem(&pbuf_spans, &zero);
	if (!a.span || !n)
		return 0;
	if (n > PBUF_AHEAD)
		n = PBUF_AHEAD;		/* the rest is not looked at */
	first = s->r.mask + 1 - start;
	if (first > n)
		first = n;
	rest = n - first;
	if (s->r.first_page && (start + first > PBUF_PAGE_ENTRIES || rest > PBUF_PAGE_ENTRIES))
		return 0;
	if (first > PBUF_AHEAD || rest > PBUF_AHEAD)
		return 0;
	/* Sizes masked in asm: the compiler drops a plain mask it can prove
	 * redundant, and older verifiers (6.1) lose the bound it relies on
	 * across register copies. */
	fsz = first * sizeof(struct pbuf_entry);
	rsz = rest * sizeof(struct pbuf_entry);
	asm volatile("%0 &= 2047" : "+r"(fsz));
	asm volatile("%0 &= 2047" : "+r"(rsz));
	if (bpf_probe_read_kernel(&a.span->e[0], fsz,
				  (void *)(s->r.bufs + start * sizeof(struct pbuf_entry))))
		return 0;
	if (rsz && bpf_probe_read_kernel((char *)a.span + fsz, rsz, (void *)s->r.bufs))
		return 0;
	a.n = n;
	bpf_loop(PBUF_AHEAD, pbuf_ahead_step, &a, 0);
	if (a.found)
		s->again = (__u32)s->r.head + a.found - 1;
	return 0;
}

/* A global function per search: verified once, on its own. The loops
 * walk a copy on this stack (a loop's context must live there). */
__noinline int pbuf_find(struct pbuf_search *out, __u64 ring, __u32 bgid)
{
	struct pbuf_search s;

	if (!out)
		return 0;
	s = *out;
	pbuf_ring_read(pbuf_list((struct io_ring_ctx *)ring, bgid), &s.r);
	if (!s.r.ok)
		goto out;
	/* An incremental ring's buffer stays at the head until its last
	 * byte is consumed: behind the head is an earlier lap's entry. */
	if (!s.r.inc || s.consumed)
		bpf_loop(PBUF_BACK, pbuf_back_step, &s, 0);
	if (!s.found && !(s.r.inc && s.consumed)) {
		/* Picked but not committed yet (the head moves at the CQE),
		 * or an incremental ring's buffer still in use. */
		struct pbuf_entry e;

		if (pbuf_entry_at(&s.r, s.r.head, &e) && e.bid == s.bid) {
			s.addr = e.addr;
			s.len = e.len;
			s.pos = s.r.head;
			s.found = true;
		}
	}
out:
	*out = s;
	return 0;
}

static __always_inline void pbuf_send(struct uc_pick *p, __u32 sid, __u32 tgid)
{
	struct uc_pick *e = ev_reserve(sid, sizeof(*e), UC_EV_PICK);

	if (!e)
		return;
	*e = *p;
	fill_hdr(&e->hdr, UC_EV_PICK, tgid);
	ev_submit(sid, e);
}

/*
 * Buffer-select request @req told of now, if it was not at submission
 * (on_submit): the record it would have had then, from its table entry
 * and the stack taken then, just before the first record about its
 * buffer. False if it cannot be (gone, or no room: counted as a loss),
 * and then nothing about its buffer is sent either. Global: verified
 * once per program, whoever calls it.
 */
__noinline bool pbuf_report_late(__u64 req)
{
	int slot = inf_find(req);
	struct inflight_val *v = slot >= 0 ? inf_val(slot) : NULL;
	struct uc_submit *s;

	if (!v)
		return false;
	if (v->flags & INF_REPORTED)
		return true;
	s = ev_reserve(v->session, offsetof(struct uc_submit, ranges), UC_EV_SUBMIT);
	if (!s)
		return false;
	__builtin_memset(s, 0, offsetof(struct uc_submit, ranges));
	fill_hdr_at(&s->hdr, UC_EV_SUBMIT, v->tgid, v->ts);
	s->hdr.tid = v->tid;
	s->seq = v->seq;
	s->req = req;
	s->ctx = v->ctx;
	s->user_data = v->user_data;
	s->opcode = v->opcode;
	s->sqe_flags = v->flags >> INF_SQE_SHIFT;
	s->direction = v->flags & INF_SOURCE ? UC_DIR_SOURCE : UC_DIR_SINK;
	s->buf_index = v->bgid;
	s->flags = UC_SUB_BUFFER_SELECT | (v->flags & INF_SQPOLL ? UC_SUB_SQPOLL : 0) |
		   (v->flags & INF_SQ_UNPUBLISHED ? UC_SUB_SQ_UNPUBLISHED : 0);
	s->stack_id = v->stack_id;
	v->flags |= INF_REPORTED;
	ev_submit(v->session, s);
	return true;
}

/*
 * The buffer of @bid in group @bgid into @p: a ring's entry, or (not a
 * ring group) UC_PICK_LEGACY for user space to look up.
 *
 * An incremental ring (IOU_PBUF_RING_INC) consumes a buffer piece by
 * piece: the kernel moves the entry's addr past each piece it hands out
 * (io_kbuf_inc_commit()) and keeps the entry at the head until nothing
 * is left. At a CQE (UC_PICK_CQE) the piece is res bytes: just below the
 * head entry's address while the buffer goes on (@buf_more, the CQE's
 * IORING_CQE_F_BUF_MORE), from the address of its entry behind the head
 * when it was the last piece. Held, it is the rest at the head (the
 * caller does not judge that: the request takes only part of it). @s:
 * the search, left for pbuf_bundle() (the ring, where the entry was).
 */
static __always_inline void pbuf_resolve(struct uc_pick *p, __u64 ring, bool scan_ahead,
					 bool buf_more, struct pbuf_search *s)
{
	__builtin_memset(s, 0, sizeof(*s));
	s->bid = p->bid;
	s->again = (__u32)-1;
	s->consumed = (p->flags & UC_PICK_CQE) && !buf_more;
	pbuf_find(s, ring, p->bgid);
	if (!s->r.ok) {
		p->flags |= UC_PICK_LEGACY;
		return;
	}
	p->flags |= UC_PICK_RING;
	if (!s->found) {
		p->flags |= UC_PICK_UNRESOLVED;
		return;
	}
	p->addr = s->addr;
	p->len = s->len;
	if (s->r.inc) {
		p->flags |= UC_PICK_INC;
		if (p->flags & UC_PICK_CQE) {
			p->len = p->res > 0 ? p->res : 0;
			if (buf_more)
				p->addr = s->addr - p->len;
		}
		/* the scan's range: the piece, not the rest */
		s->addr = p->addr;
		s->len = p->len;
	}
	if (scan_ahead && s->len)
		pbuf_scan_ahead(s);
	if (scan_ahead && s->again != (__u32)-1) {
		p->flags |= UC_PICK_REPROVIDED;
		p->again_pos = s->again;
		p->avail = (__u16)(s->r.tail - s->r.head);
	}
}

/*
 * A ring buffer held, as far as another request is concerned: picked and
 * taken from the ring. A receive that finds no data picks one and puts it
 * back unused at once (io_kbuf_recycle); seen in between, from another
 * CPU, that pick would look like one buffer held by two requests when
 * the next receive picks it (liburing's poll-race-mshot). A request that
 * waits holding its buffer (partial data, an io-wq worker) has taken it.
 */
static __always_inline bool pbuf_ring_held(struct io_kiocb *req, __u64 flags)
{
	if (!req_buffer_ring || !(flags & req_buffer_ring))
		return false;
	if (req_buffers_commit)
		return !(flags & req_buffers_commit);
	if (bpf_core_field_exists(struct io_kiocb___buf_list, buf_list))
		return !BPF_CORE_READ((struct io_kiocb___buf_list *)req, buf_list);
	return true;
}

/* The buffer id request @req holds now (as pbuf_ring_held() counts a
 * ring's), -1 if none. */
static __always_inline int pbuf_bid_now(struct io_kiocb *req)
{
	__u64 flags = req_flags(req);

	if (req_buffer_selected && (flags & req_buffer_selected))
		return BPF_CORE_READ(req, kbuf, bid);
	if (pbuf_ring_held(req, flags))
		return BPF_CORE_READ(req, buf_index);
	return -1;
}

/*
 * Watched request @w was told to hold buffer (bgid, bid_sent), and holds
 * it no more without a CQE: the kernel took it back unused (a receive
 * that has to wait puts its buffer back for later, io_kbuf_recycle), so
 * another request may pick that very buffer next. User space drops the
 * hold first; else the two would look like one buffer held twice
 * (liburing's poll-race-mshot, one run in ten).
 */
static __always_inline void pbuf_released(struct pbuf_watch *w, __u64 ring,
					  __u32 sid, __u32 tgid)
{
	struct uc_pick *e;

	if (!w->req || !w->addr_sent || w->seq_sent_held != w->seq ||
	    pbuf_bid_now((struct io_kiocb *)w->req) == w->bid_sent)
		return;
	w->addr_sent = 0;
	e = ev_reserve(sid, sizeof(*e), UC_EV_PICK);
	if (!e)
		return;
	__builtin_memset(e, 0, sizeof(*e));
	fill_hdr(&e->hdr, UC_EV_PICK, tgid);
	e->seq = w->seq;
	e->ctx = ring;
	e->bgid = w->bgid;
	e->bid = w->bid_sent;
	e->flags = UC_PICK_HELD | UC_PICK_RELEASED;
	ev_submit(sid, e);
}

/* Watch @i (< PBUF_WATCH, a power of two) of @ri. The mask in asm: the
 * compiler drops one it can prove redundant, and the verifier does not
 * carry the caller's bound through the multiplication. */
static __always_inline struct pbuf_watch *pbuf_watch_at(struct ring_info *ri, __u32 i)
{
	__u64 idx = i;

	asm volatile("%0 &= %1" : "+r"(idx) : "i"(PBUF_WATCH - 1));
	return &ri->pbuf_watch[idx];
}

/* pbuf_watch_released()'s "whichever buffer it was told of" */
#define UC_PBUF_ANY	(~0ULL)

/* Watched request @i of @ring, if it was told to hold a buffer (with
 * @match, not UC_PBUF_ANY: buffer bid << 32 | bgid, by a request other
 * than @except) and holds it no more: released. @ri: @ring's entry. Global, as
 * pbuf_watch_held() is: verified once, not once per watch and caller
 * (the four inlined copies were a quarter of the syscall hook's
 * verification). */
__noinline int pbuf_watch_released(struct ring_info *ri, __u64 ring, __u32 i,
				   __u64 except, __u64 match)
{
	struct pbuf_watch *w;

	if (!ri || i >= PBUF_WATCH)
		return 0;
	w = pbuf_watch_at(ri, i);
	if (match != UC_PBUF_ANY &&
	    (w->req == except || w->bgid != (__u32)match || w->bid_sent != match >> 32))
		return 0;
	pbuf_released(w, ring, ri->session, ri->tgid);
	return 0;
}

/* The other watched requests of @ring told to hold buffer @bid of group
 * @bgid that hold it no more, released. Global: inlined, the CQE path's
 * frames added up to 528 bytes of 512 (6.1 and 6.12 count every frame a
 * program can reach). */
__noinline int pbuf_release_stale(__u64 ring, __u64 except, __u32 bgid, __u32 bid)
{
	struct ring_info *ri = bpf_map_lookup_elem(&rings, &ring);

	for (__u32 i = 0; ri && i < PBUF_WATCH; i++)
		pbuf_watch_released(ri, ring, i, except, bgid | (__u64)bid << 32);
	return 0;
}

/* A held buffer of @req was sent: its CQE must be sent too, to end it. */
static __always_inline void pbuf_mark_held(__u64 req, __u64 ring, __u64 user_data)
{
	struct pbuf_key k = { .ctx = ring, .user_data = user_data };
	int slot = inf_find(req);
	struct inflight_val *v = slot >= 0 ? inf_val(slot) : NULL;
	struct pbuf_req *pr = bpf_map_lookup_elem(&pbuf_reqs, &k);

	if (v)
		v->flags |= INF_PBUF_HELD;	/* its last CQE; its DONE ends it too */
	if (pr && pr->req == req)
		pr->held_sent = 1;
}

/* Does the watched request @w hold a picked buffer now? Sent if so
 * (once); 1 if it holds one. */
/* pbuf_held_one's record, per CPU: on its stack it made pbuf_watch_held
 * the largest frame (176 bytes) of sys_enter's deepest call chain (a sync
 * call's look at its process's held buffers), past the 512 bytes 6.1's
 * verifier allows a chain. Its callers are tracepoint and uprobe programs,
 * which do not interrupt one another on a CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uc_pick);
} pbuf_held_scratch SEC(".maps");

static __always_inline int pbuf_held_one(struct pbuf_watch *w, __u64 ring,
					 __u32 sid, __u32 tgid)
{
	struct io_kiocb *req = (struct io_kiocb *)w->req;
	__u32 zero = 0;
	struct uc_pick *pp = bpf_map_lookup_elem(&pbuf_held_scratch, &zero);
	__u64 flags;

	if (!req || !pp)
		return 0;
	__builtin_memset(pp, 0, sizeof(*pp));
	flags = req_flags(req);
	pp->seq = w->seq;
	pp->ctx = ring;
	pp->user_data = BPF_CORE_READ(req, cqe.user_data);
	pp->bgid = w->bgid;
	pp->flags = UC_PICK_HELD;
	if (req_buffer_selected && (flags & req_buffer_selected)) {
		struct io_buffer *kbuf = BPF_CORE_READ(req, kbuf);

		pp->flags |= UC_PICK_LEGACY;
		pp->addr = BPF_CORE_READ(kbuf, addr);
		pp->len = BPF_CORE_READ(kbuf, len);
		pp->bid = BPF_CORE_READ(kbuf, bid);
	} else if (pbuf_ring_held(req, flags)) {
		struct pbuf_search s;

		pp->bid = BPF_CORE_READ(req, buf_index);
		pbuf_resolve(pp, ring, false, false, &s);
		/* An incremental buffer held across a wait: how much of its
		 * rest the request takes is known only at its CQE (judged
		 * then). The whole rest would be a false overlap. */
		if (pp->flags & UC_PICK_INC)
			return 0;
	} else {
		return 0;	/* nothing picked (yet) */
	}
	if (pp->addr && !(pp->flags & UC_PICK_UNRESOLVED) &&
	    (w->seq == w->seq_sent_held && pp->addr == w->addr_sent))
		return 1;	/* told already */
	/* Not found now (its entry far behind the head), this very buffer
	 * told before: once is enough, resolved or not (each would count
	 * as a gap). */
	if ((pp->flags & UC_PICK_UNRESOLVED) && w->seq == w->seq_sent_held &&
	    pp->bid == w->bid_sent)
		return 1;
	if (!pbuf_report_late((__u64)req))
		return 1;
	w->seq_sent_held = w->seq;
	w->addr_sent = pp->addr;
	w->bid_sent = pp->bid;
	pbuf_mark_held((__u64)req, ring, pp->user_data);
	pbuf_send(pp, sid, tgid);
	return 1;
}

/* Watched request @i of @ring, unless it is @except, told of
 * (pbuf_report_late). Global, as its neighbours are. */
__noinline int pbuf_watch_report(struct ring_info *ri, __u32 i, __u64 except)
{
	__u64 req;

	if (!ri || i >= PBUF_WATCH)
		return 0;
	req = pbuf_watch_at(ri, i)->req;
	if (req && req != except)
		pbuf_report_late(req);
	return 0;
}

/* pbuf_held_one() for watched request @i of @ring (@ri). */
__noinline int pbuf_watch_held(struct ring_info *ri, __u64 ring, __u32 i)
{
	if (!ri || i >= PBUF_WATCH)
		return 0;
	return pbuf_held_one(pbuf_watch_at(ri, i), ring, ri->session, ri->tgid);
}

/* The watched requests of one ring: held buffers sent; how many are
 * held. Global: verified once, whoever calls it. */
__noinline int pbuf_held_ring(struct ring_info *ri, __u64 ring)
{
	int held = 0;

	if (!ri || !ri->pbuf_watched)
		return 0;
	/* Holds that ended unused first: their buffers may be held by
	 * another watched request now. */
	for (__u32 i = 0; i < PBUF_WATCH; i++)
		pbuf_watch_released(ri, ring, i, 0, UC_PBUF_ANY);
	for (__u32 i = 0; i < PBUF_WATCH; i++)
		held += pbuf_watch_held(ri, ring, i);
	return held;
}

struct ring_probe {
	__u32 tgid;
	__u32 found;
	__u64 pick;		/* the process's rings */
};

static long pbuf_held_step(__u64 i, struct ring_probe *p)
{
	struct ring_info *ri;
	__u64 ctx;

	if (!ring_pick_slot(p->pick, &i))
		return 0;
	ri = ring_at(i, &ctx);
	if (ri && ri->tgid == p->tgid && ri->pbuf_watched)
		pbuf_held_ring(ri, ctx);
	return 0;
}

/* Before a watched call of process @tgid is sent. */
static __always_inline void pbuf_held_process(__u32 tgid)
{
	struct ring_probe p = { .tgid = tgid };

	if (pbuf_watched_total > 0)
		bpf_loop(ring_pick_init(&p.pick, tgid), pbuf_held_step, &p, 0);
}

static long ring_mem_step(__u64 i, struct ring_probe *p)
{
	struct ring_info *ri;
	__u64 ctx;

	if (!ring_pick_slot(p->pick, &i))
		return 0;
	ri = ring_at(i, &ctx);
	if (ri && ri->tgid == p->tgid && ri->mem_inflight > 0) {
		p->found = 1;
		return 1;
	}
	return 0;
}

/* The same, or a buffer-select request holding a provided buffer right
 * now (which is then sent). A callback of its own: the CQE path must not
 * reach pbuf_held_ring() (6.1 counts the stacks of every function a
 * program can reach: 544 bytes of 512 through both). */
static long ring_busy_step(__u64 i, struct ring_probe *p)
{
	struct ring_info *ri;
	__u64 ctx;

	if (!ring_pick_slot(p->pick, &i))
		return 0;
	ri = ring_at(i, &ctx);
	if (ri && ri->tgid == p->tgid &&
	    (ri->mem_inflight > 0 || (ri->pbuf_watched && pbuf_held_ring(ri, ctx)))) {
		p->found = 1;
		return 1;
	}
	return 0;
}

/* Has process @tgid a request holding user memory in flight on any of its
 * rings (with @held_too: or a buffer-select request holding a provided
 * buffer right now, which is then sent)? */
static __always_inline bool process_holds_mem(__u32 tgid, bool held_too)
{
	struct ring_probe p = { .tgid = tgid };
	__u32 n = ring_pick_init(&p.pick, tgid);

	if (held_too)
		bpf_loop(n, ring_busy_step, &p, 0);
	else
		bpf_loop(n, ring_mem_step, &p, 0);
	return p.found;
}

/*
 * A bundle (IORING_RECVSEND_BUNDLE): its CQE names the first buffer, but
 * the kernel filled and took res bytes' worth of consecutive ring entries
 * from there (io_bundle_nbufs(), committed before the CQE). @p, the first
 * buffer's pick, already sent, is reused for each further buffer, @s is
 * the search that found the first: from the entry after it up to the
 * head, until res bytes are covered. What cannot be read (past the head,
 * PBUF_BUNDLE buffers) goes as one unresolved pick: counted and printed,
 * never guessed. Global, and without a search of its own: only bundles
 * reach it, and the CQE path's frames add up to the 512 bytes 6.1 and
 * 6.12 allow (they count every frame a program can reach).
 */
#define PBUF_BUNDLE	16	/* buffers judged per bundle after its first */

__noinline int pbuf_bundle(struct uc_pick *p, struct pbuf_search *s, __u32 sid,
			   __u32 tgid, int scan_ahead)
{
	struct pbuf_entry e;
	__u32 covered, pos;
	int k;

	if (!p || !s || !s->found || s->r.inc || p->res <= 0)
		return 0;
	covered = s->len;
	pos = s->pos + 1;
	p->flags = UC_PICK_CQE | UC_PICK_RING | UC_PICK_BUNDLE | (p->flags & UC_PICK_MORE);
	p->other_seq = 0;
	for (k = 0; k < PBUF_BUNDLE && covered < (__u32)p->res; k++, pos++) {
		if ((__u16)(s->r.head - pos) == 0 || (__u16)(s->r.head - pos) > PBUF_BACK ||
		    !pbuf_entry_at(&s->r, pos, &e))
			break;
		p->bid = e.bid;
		p->addr = e.addr;
		p->len = e.len;
		p->flags &= ~UC_PICK_REPROVIDED;
		covered += e.len;
		if (scan_ahead && e.len) {
			s->addr = e.addr;
			s->len = e.len;
			s->again = (__u32)-1;
			pbuf_scan_ahead(s);
			if (s->again != (__u32)-1) {
				p->flags |= UC_PICK_REPROVIDED;
				p->again_pos = s->again;
				p->avail = (__u16)(s->r.tail - s->r.head);
			}
		}
		pbuf_send(p, sid, tgid);
	}
	if (covered < (__u32)p->res) {
		p->flags = UC_PICK_CQE | UC_PICK_RING | UC_PICK_BUNDLE | UC_PICK_UNRESOLVED;
		p->addr = 0;
		p->len = 0;
		pbuf_send(p, sid, tgid);
	}
	return 0;
}

/*
 * Another watched request of the ring that holds buffer @p->bid of the
 * group right now, while the kernel hands it back to @except: the
 * program gave that buffer again while the first request held it (a
 * MSG_WAITALL receive waiting for the rest), and the kernel gave it to a
 * second request. The holder is told of, marked held (its CQE must end
 * the hold), and named in @p (UC_PICK_DOUBLE): user space makes it hold
 * the buffer before this CQE is judged, so the overlap rule sees both.
 * Incremental rings are left out: there several requests share one
 * buffer, each its own piece. Global: verified once.
 */
__noinline int pbuf_double(struct ring_info *ri, __u64 except, struct uc_pick *p)
{
	if (!ri || !p)
		return 0;
	for (__u32 i = 0; i < PBUF_WATCH; i++) {
		struct pbuf_watch *w = pbuf_watch_at(ri, i);
		__u64 req = w->req, seq = w->seq;

		if (!req || req == except || w->bgid != p->bgid ||
		    pbuf_bid_now((struct io_kiocb *)req) != p->bid)
			continue;
		if (!pbuf_report_late(req))
			continue;
		pbuf_mark_held(req, p->ctx, BPF_CORE_READ((struct io_kiocb *)req, cqe.user_data));
		p->flags |= UC_PICK_DOUBLE;
		p->other_seq = seq;
		break;
	}
	return 0;
}

/* The CQE path's pick and search: a per-CPU scratch, not the stack (the
 * path's frames, counted together on 6.1 and 6.12, stay under 512 bytes
 * with pbuf_bundle() and pbuf_double() below it). One program uses it,
 * and a tracing program does not run nested in itself on one CPU. */
struct pbuf_cqe {
	struct uc_pick p;
	struct pbuf_search s;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pbuf_cqe);
} pbuf_cqes SEC(".maps");

/*
 * A CQE with a buffer id on @ring: the buffer was the request's up to
 * now. Sent before the request's DONE (which forgets the request). @req
 * is 0 for a multishot request's CQEs before its last: found by
 * user_data then.
 */
__noinline int pbuf_on_cqe(__u64 ring, __u64 req, __u64 user_data, __s32 res,
			   __u32 cflags)
{
	struct pbuf_key k = { .ctx = ring, .user_data = user_data };
	struct pbuf_cqe *c;
	struct uc_pick *p;
	struct pbuf_req *pr;
	struct ring_info *ri;
	__u32 sid, tgid, zero = 0;
	__u64 seq, key = req;
	__u16 bgid;
	bool held_sent, pickable, busy, bundle;

	if (req) {
		int slot = inf_find(req);
		struct inflight_val *v = slot >= 0 ? inf_val(slot) : NULL;

		if (!v || v->ctx != ring || !(v->flags & INF_BSEL) ||
		    !session_owned_by(v->session, v->owner))
			return 0;
		seq = v->seq;
		bgid = v->bgid;
		sid = v->session;
		tgid = v->tgid;
		held_sent = v->flags & INF_PBUF_HELD;
	} else {
		pr = bpf_map_lookup_elem(&pbuf_reqs, &k);
		if (!pr || !session_owned_by(pr->session, pr->owner))
			return 0;
		seq = pr->seq;
		bgid = pr->bgid;
		sid = pr->session;
		tgid = pr->tgid;
		held_sent = pr->held_sent;
		key = pr->req;
	}
	/*
	 * Worth judging at all? A copy of the buffer still in the ring is a
	 * hazard only while something can pick it: the request itself going
	 * on (multishot), or another buffer-select request of the ring (a
	 * watched one besides this). An overlap needs memory in flight, or a
	 * held buffer user space attached to the request (its end). A loop
	 * of single requests alone on a ring (liburing's buf-ring: 221,172
	 * reads) costs a lookup here, not a resolution and a record each.
	 */
	ri = bpf_map_lookup_elem(&rings, &ring);
	pickable = (cflags & UC_CQE_F_MORE) || (ri && ri->pbuf_watched > 1);
	busy = held_sent || process_holds_mem(tgid, false);
	if (!pickable && !busy)
		return 0;
	c = bpf_map_lookup_elem(&pbuf_cqes, &zero);
	if (!c)
		return 0;
	p = &c->p;
	__builtin_memset(p, 0, sizeof(*p));
	p->seq = seq;
	p->bgid = bgid;
	p->ctx = ring;
	p->user_data = user_data;
	p->res = res;
	p->bid = cflags >> UC_CQE_BUFFER_SHIFT;
	p->flags = UC_PICK_CQE;
	if (cflags & UC_CQE_F_MORE)
		p->flags |= UC_PICK_MORE;
	pbuf_resolve(p, ring, pickable, cflags & UC_CQE_F_BUF_MORE, &c->s);
	/* More data than the first buffer holds: a bundle's. */
	bundle = (p->flags & (UC_PICK_RING | UC_PICK_UNRESOLVED | UC_PICK_INC)) == UC_PICK_RING &&
		 res > 0 && (__u32)res > p->len;
	/* Another request holding this very buffer now (it was given
	 * twice): only where another buffer-select request is watched. */
	if (ri && ri->pbuf_watched > 1 &&
	    !(p->flags & (UC_PICK_UNRESOLVED | UC_PICK_INC)))
		pbuf_double(ri, key, p);
	if (!(p->flags & (UC_PICK_REPROVIDED | UC_PICK_DOUBLE)) && !busy && !bundle)
		return 0;
	if (!pbuf_report_late(key))
		return 0;
	/* Another request told to hold this buffer that holds it no more. */
	pbuf_release_stale(ring, key, p->bgid, p->bid);
	/* A copy another request of the ring could pick: those must be
	 * known too (checker/provided_buffers.c, pickable()). */
	if ((p->flags & UC_PICK_REPROVIDED) && !(cflags & UC_CQE_F_MORE) && ri)
		for (__u32 i = 0; i < PBUF_WATCH; i++)
			pbuf_watch_report(ri, i, key);
	pbuf_send(p, sid, tgid);
	if (bundle)
		pbuf_bundle(p, &c->s, sid, tgid, pickable);
	return 0;
}

/* A buffer-select request submitted: remembered for its CQEs and, while
 * a watch slot of its ring is free, for the held scans. */
__noinline int pbuf_track(struct inflight_val *v, __u64 req, struct ring_info *ri)
{
	struct pbuf_key k;
	struct pbuf_req pr = {};

	if (!v)
		return 0;
	k.ctx = v->ctx;
	k.user_data = v->user_data;
	pr.req = req;
	pr.seq = v->seq;
	pr.session = v->session;
	pr.owner = v->owner;
	pr.tgid = v->tgid;
	pr.bgid = v->bgid;
	bpf_map_update_elem(&pbuf_reqs, &k, &pr, BPF_ANY);
	if (!ri)
		return 0;
	for (int i = 0; i < PBUF_WATCH; i++) {
		struct pbuf_watch *w = &ri->pbuf_watch[i];

		if (w->req || __sync_val_compare_and_swap(&w->req, 0, req) != 0)
			continue;
		w->seq = v->seq;
		w->bgid = v->bgid;
		w->seq_sent_held = 0;
		w->addr_sent = 0;
		__sync_fetch_and_add(&ri->pbuf_watched, 1);
		__sync_fetch_and_add(&pbuf_watched_total, 1);
		break;
	}
	return 0;
}

/* A buffer-select request ended. Inline: its caller, end_one(), is
 * already a global function as deep as the verifier allows (teardown's
 * nested table walks). */
static __always_inline void pbuf_forget(__u64 ring, __u64 user_data, __u64 req)
{
	struct pbuf_key k = { .ctx = ring, .user_data = user_data };
	struct pbuf_req *v = bpf_map_lookup_elem(&pbuf_reqs, &k);
	struct ring_info *ri;

	if (v && v->req == req)
		bpf_map_delete_elem(&pbuf_reqs, &k);
	ri = bpf_map_lookup_elem(&rings, &ring);
	if (!ri)
		return;
	for (int i = 0; i < PBUF_WATCH; i++) {
		if (ri->pbuf_watch[i].req == req &&
		    __sync_val_compare_and_swap(&ri->pbuf_watch[i].req, req, 0) == req) {
			__sync_fetch_and_add(&ri->pbuf_watched, -1);
			__sync_fetch_and_add(&pbuf_watched_total, -1);
			break;
		}
	}
}

/* A ring leaves the table with its watch slots. */
static __always_inline void pbuf_ring_gone(struct ring_info *ri)
{
	__s64 n = ri->pbuf_watched;

	if (n)
		__sync_fetch_and_add(&pbuf_watched_total, -n);
}

/* IORING_OP_PROVIDE_BUFFERS: the buffers of a legacy group, for user
 * space to resolve that group's picks (the kernel frees its own record
 * of a buffer when it hands it back). */
__noinline int pbuf_provide_record(struct uc_submit *s, __u32 sid)
{
	struct io_provide_buf *pb;
	struct uc_provide *e;

	if (!s)
		return 0;
	pb = (struct io_provide_buf *)&((struct io_kiocb *)s->req)->cmd;
	e = ev_reserve(sid, sizeof(*e), UC_EV_PROVIDE);
	if (!e)
		return 0;
	fill_hdr_at(&e->hdr, UC_EV_PROVIDE, s->hdr.tgid, s->hdr.ts);
	e->seq = s->seq;
	e->ctx = s->ctx;
	e->addr = BPF_CORE_READ(pb, addr);
	e->len = BPF_CORE_READ(pb, len);
	e->nbufs = BPF_CORE_READ(pb, nbufs);
	e->bgid = BPF_CORE_READ(pb, bgid);
	e->bid = BPF_CORE_READ(pb, bid);
	e->pad = 0;
	ev_submit(sid, e);
	return 0;
}

#endif /* __PROVIDED_BUFFERS_BPF_H */
