// SPDX-License-Identifier: GPL-2.0
/*
 * Hazards judged at system calls (docs/hazards.md):
 *
 * munmap-inflight: munmap, a shrinking or moving mremap,
 * madvise(DONTNEED/FREE/REMOVE), an mmap(MAP_FIXED) over existing memory,
 * or a shrinking brk, over bytes an in-flight request holds.
 *
 * bufreg-lifetime: IORING_UNREGISTER_BUFFERS, or IORING_REGISTER_BUFFERS_UPDATE
 * of an index, while a request using that index is in flight.
 *
 * sync-overlap: a plain read-family call storing into bytes an in-flight
 * request holds (a read stores there, a write loads from there), or a
 * write-family call loading from bytes an in-flight read stores into,
 * unless into the pipe or socket that read waits on (the data flow orders
 * them).
 *
 * All are judged against the requests in flight when the call *entered*
 * (a request finishing during the call still raced with it), and reported
 * only if the call succeeded (its return, or the io_uring_register
 * tracepoint for the ring and result).
 *
 * bufreg-unmapped: such a release over a registered buffer (regbuf_ring()).
 *
 * A rule (rule.h): on_call, on_call_ret, on_register; one call in
 * progress per thread in its own state. It writes the model's registered-
 * buffer table (tracker_bufs_set()) after judging a registration: it is
 * the part that kept the registration's iovecs since the call entered.
 */
#include <stdlib.h>
#include <string.h>

#include "describe.h"
#include "rule.h"
#include "xalloc.h"
#include "../../reports/dedup.h"
#include "kinds/kind_reports.h"

#define PAGE 4096ULL
#define REG_UNREGISTER_BUFFERS	1
#define REG_BUFFERS_UPDATE	16
#define REG_BUFFERS		0
#define REG_BUFFERS2		15
#define MREMAP_MAYMOVE		1
#define MREMAP_FIXED		2

/* A call between entry and return: what it may release, and the
 * requests that held those bytes (or that index) at entry. */
struct pending_call {
	struct uc_call call;
	struct uc_range *regs;		/* io_uring_register: iovecs */
	uint32_t nregs;
	uint64_t start, end;		/* unmap: the most it can release */
	struct uc_request_desc *hits;	/* copies: requests may end meanwhile */
	uint64_t *hit_ctx;
	uint32_t nhits, cap;
	uint64_t withheld;		/* hits events lost could explain */
	uint64_t *hit_start, *hit_end;	/* sync: the bytes each hit shares */
	bool spans_loss;		/* ... and confirmed hits among them */
};

/* Keeps a copy of in-flight request @r (the request may end before the
 * call returns) as hit, described by its range piece [start, end), with
 * [sstart, send) the bytes it shares with the call. */
static void add_hit(struct uc_check *ck, struct pending_call *pc,
		    const struct uc_request *r, uint64_t start, uint64_t end,
		    uint64_t sstart, uint64_t send)
{
	if (pc->nhits == pc->cap) {
		pc->cap = pc->cap ? pc->cap * 2 : 8;
		pc->hits = xrealloc(pc->hits, pc->cap * sizeof(*pc->hits));
		pc->hit_ctx = xrealloc(pc->hit_ctx, pc->cap * sizeof(*pc->hit_ctx));
		pc->hit_start = xrealloc(pc->hit_start, pc->cap * sizeof(*pc->hit_start));
		pc->hit_end = xrealloc(pc->hit_end, pc->cap * sizeof(*pc->hit_end));
	}
	describe_request(&pc->hits[pc->nhits], r, start, end);
	/* The request may finish before the call returns: keep its stack. */
	stacks_ref(&ck->stacks, r->sub.stack_id);
	pc->hit_ctx[pc->nhits] = r->sub.ctx;
	pc->hit_start[pc->nhits] = sstart;
	pc->hit_end[pc->nhits] = send;
	pc->nhits++;
}

static void pending_free(struct uc_check *ck, struct pending_call *pc)
{
	if (!pc)
		return;
	for (uint32_t i = 0; i < pc->nhits; i++)
		stacks_unref(&ck->stacks, pc->hits[i].stack_id);
	stacks_unref(&ck->stacks, pc->call.stack_id);
	free(pc->regs);
	free(pc->hits);
	free(pc->hit_ctx);
	free(pc->hit_start);
	free(pc->hit_end);
	free(pc);
}

/*
 * A call whose return will not be seen: its thread made another call (its
 * exit went unseen) or the run ended first (the process was killed in
 * the call, or the return's mark was refused: sync_calls_unjudged). A
 * sync call that met in-flight bytes is not judged then, and counted
 * (said at the end): how much it moved is not known.
 */
static void pending_gone(struct uc_check *ck, struct pending_call *pc)
{
	if (pc && pc->call.dir != UC_DIR_NONE && (pc->nhits || pc->withheld))
		ck->sync_unreturned++;
	pending_free(ck, pc);
}

/* ---- munmap-inflight --------------------------------------------------- */

struct unmap_scan {
	struct uc_check *ck;
	struct pending_call *pc;
	const struct uc_request *last;
};

static void unmap_hit(struct itree_node *n, void *arg)
{
	struct unmap_scan *s = arg;
	struct pending_call *pc = s->pc;
	const struct uc_request *r = n->owner;
	bool spans_loss;

	if (r == s->last)
		return;
	s->last = r;
	if (evidence_judge(&s->ck->ev, r, &spans_loss) == UC_WITHHELD) {
		pc->withheld++;
		return;
	}
	pc->spans_loss |= spans_loss;
	/* Keep the overlapping piece of this range as the description. */
	add_hit(s->ck, pc, r, n->start, n->end, n->start, n->end);
}

static void unmap_enter(struct uc_check *ck, struct pending_call *pc)
{
	const struct uc_call *c = &pc->call;
	struct uc_aspace *as = u64map_get(&ck->model.aspaces, c->hdr.tgid);
	struct unmap_scan s = { .ck = ck, .pc = pc };
	uint64_t addr = c->args[0], len = c->args[1];

	if (c->nr == UC_NR_MREMAP)
		len = c->args[1];		/* old_size: all of it may move */
	if (c->nr == UC_NR_BRK) {
		/* A shrinking break gives back [new, old), page-rounded. */
		uint64_t new_brk = (c->args[0] + PAGE - 1) & ~(PAGE - 1);
		uint64_t old_brk = (c->args[1] + PAGE - 1) & ~(PAGE - 1);

		if (!c->args[0] || new_brk >= old_brk)
			return;		/* a query, or growth */
		addr = new_brk;
		len = old_brk - new_brk;
	}
	len = (len + PAGE - 1) & ~(PAGE - 1);
	pc->start = addr;
	pc->end = addr + len < addr ? UINT64_MAX : addr + len;
	evidence_refresh(&ck->ev, &ck->model);
	if (as && pc->end > pc->start)
		itree_query(&as->ranges, pc->start, pc->end, unmap_hit, &s);
}

/*
 * bufreg-unmapped: the released range also backs a registered buffer of
 * one of the process's rings. A request in flight on that index that the
 * call hit is already a munmap-inflight finding; otherwise the pinned old
 * pages wait for the next fixed-buffer request.
 */
struct regbuf_scan {
	struct uc_check *ck;
	const struct pending_call *pc;
	uint64_t start, end;
};

static bool index_reported(const struct pending_call *pc, uint64_t ctx, uint32_t index)
{
	for (uint32_t i = 0; i < pc->nhits; i++)
		if (pc->hit_ctx[i] == ctx && pc->hits[i].fixed_buf &&
		    pc->hits[i].buf_index == index)
			return true;
	return false;
}

static void regbuf_ring(uint64_t ctx, void *val, void *arg)
{
	struct regbuf_scan *s = arg;
	const struct uc_call *c = &s->pc->call;
	struct uc_ring *ring = val;

	if (ring->tgid != c->hdr.tgid)
		return;
	for (uint32_t i = 0; i < ring->nbufs; i++) {
		uint64_t rs = ring->bufs[i].addr, re = rs + ring->bufs[i].len;
		struct uc_bufreg_unmap_finding f;

		if (!ring->bufs[i].len || ring->bufs[i].released || re <= s->start ||
		    rs >= s->end || index_reported(s->pc, ctx, i))
			continue;
		/* Once: mapping something new there later releases nothing. */
		ring->bufs[i].released = true;
		f = (struct uc_bufreg_unmap_finding){
			.tgid = c->hdr.tgid, .tid = c->hdr.tid, .nr = c->nr,
			.advice = c->args[2], .call_start = s->start, .call_end = s->end,
			.ring_fd = ring->fd, .index = i, .reg_start = rs, .reg_end = re,
			.call_stack_id = c->stack_id, .reg_stack_id = ring->reg_stack_id,
		};
		f.key = uc_key_mix(uc_key_mix(c->nr, stacks_site_key(&s->ck->stacks, c->stack_id)),
				   stacks_site_key(&s->ck->stacks, ring->reg_stack_id));
		report_bufreg_unmapped(s->ck->report, &f);
	}
}

static void unmap_ret(struct uc_check *ck, struct pending_call *pc, int64_t ret)
{
	const struct uc_call *c = &pc->call;
	uint64_t start = pc->start, end = pc->end;

	if (c->nr == UC_NR_MREMAP) {
		uint64_t old_size = (c->args[1] + PAGE - 1) & ~(PAGE - 1);
		uint64_t new_size = (c->args[2] + PAGE - 1) & ~(PAGE - 1);

		if (ret < 0 && ret > -4096)
			return;
		if ((uint64_t)ret == c->args[0]) {
			if (new_size >= old_size)
				return;		/* grew in place: nothing released */
			start = c->args[0] + new_size;
		}
		end = c->args[0] + old_size;	/* moved: all of it released */
	} else if (c->nr == UC_NR_MMAP || c->nr == UC_NR_BRK) {
		/* MAP_FIXED returns the address asked for, brk the new break */
		if ((uint64_t)ret != c->args[0] || pc->end <= pc->start)
			return;
	} else if (ret != 0) {
		return;
	}
	report_withheld(ck->report, UC_KIND_MUNMAP_INFLIGHT, pc->withheld);

	for (uint32_t i = 0; i < pc->nhits; i++) {
		struct uc_unmap_finding f = {
			.tgid = c->hdr.tgid, .tid = c->hdr.tid, .nr = c->nr,
			.call_start = start, .call_end = end, .advice = c->args[2],
			.call_stack_id = c->stack_id,
			.req = pc->hits[i],
			.spans_loss = pc->spans_loss,
		};

		f.key = uc_key_mix(uc_key_mix(c->nr, stacks_site_key(&ck->stacks, c->stack_id)),
				   stacks_site_key(&ck->stacks, f.req.stack_id));
		f.start = f.req.start > start ? f.req.start : start;
		f.end = f.req.end < end ? f.req.end : end;
		if (f.start >= f.end)
			continue;
		report_unmap(ck->report, &f);
	}
	{
		struct regbuf_scan rs = { .ck = ck, .pc = pc, .start = start, .end = end };

		u64map_each(&ck->model.rings, regbuf_ring, &rs);
	}
}

/* ---- bufreg-lifetime --------------------------------------------------- */

struct index_scan {
	struct uc_check *ck;
	struct pending_call *pc;
	uint32_t tgid, lo, hi;		/* indexes [lo, hi) */
};

static void index_hit(uint64_t seq, void *val, void *arg)
{
	struct index_scan *s = arg;
	const struct uc_request *r = val;
	bool spans_loss;

	(void)seq;
	if (r->sub.hdr.tgid != s->tgid || !(r->sub.flags & UC_SUB_FIXED_BUF) ||
	    r->sub.buf_index < s->lo || r->sub.buf_index >= s->hi)
		return;
	if (evidence_judge(&s->ck->ev, r, &spans_loss) == UC_WITHHELD) {
		s->pc->withheld++;
		return;
	}
	s->pc->spans_loss |= spans_loss;
	add_hit(s->ck, s->pc, r, r->ranges[0].addr, r->ranges[0].addr + r->ranges[0].len,
		r->ranges[0].addr, r->ranges[0].addr + r->ranges[0].len);
}

static void register_enter(struct uc_check *ck, struct pending_call *pc)
{
	const struct uc_call *c = &pc->call;
	uint32_t op = c->args[1] & ~(1u << 31);
	struct index_scan s = { .ck = ck, .pc = pc, .tgid = c->hdr.tgid };

	/* The iovecs being registered: inline, then continuation records. */
	if (c->nr_ranges) {
		uint32_t more = 0, n = c->nr_inline;
		struct uc_range *extra = tracker_take_ranges(&ck->model, c->seq, &more);

		pc->regs = xmalloc((n + more) * sizeof(*pc->regs));
		memcpy(pc->regs, c->ranges, n * sizeof(*pc->regs));
		if (extra)
			memcpy(pc->regs + n, extra, more * sizeof(*pc->regs));
		free(extra);
		pc->nregs = n + more;
	}
	if (op == REG_UNREGISTER_BUFFERS) {
		s.lo = 0;
		s.hi = UINT32_MAX;
	} else if (op == REG_BUFFERS_UPDATE) {
		s.lo = c->reg_offset;
		s.hi = c->reg_offset + c->reg_nr;
	} else {
		return;
	}
	evidence_refresh(&ck->ev, &ck->model);
	u64map_each(&ck->model.requests, index_hit, &s);
}

static void register_done(struct uc_check *ck, struct pending_call *pc,
			  const struct uc_register *reg)
{
	const struct uc_call *c = &pc->call;
	uint32_t op = reg->opcode & ~(1u << 31);
	struct uc_ring *ring = tracker_ring(&ck->model, reg->ctx, c->hdr.tgid);

	if (reg->ret < 0)
		return;
	report_withheld(ck->report, UC_KIND_BUFREG_LIFETIME, pc->withheld);
	/* Judge first (against the table as it was), then update it. */
	if (op == REG_UNREGISTER_BUFFERS || op == REG_BUFFERS_UPDATE) {
		/* One finding per index, listing its live requests. */
		for (uint32_t i = 0; i < pc->nhits; i++) {
			struct uc_bufreg_finding f = {
				.tgid = c->hdr.tgid, .tid = c->hdr.tid,
				.ring_fd = ring->fd, .reg_opcode = op,
				.index = pc->hits[i].buf_index,
				.call_stack_id = c->stack_id,
				.reg_stack_id = ring->reg_stack_id,
				.spans_loss = pc->spans_loss,
			};
			bool first = true;

			if (pc->hit_ctx[i] != reg->ctx)
				continue;
			for (uint32_t k = 0; k < i; k++)
				if (pc->hit_ctx[k] == reg->ctx &&
				    pc->hits[k].buf_index == f.index)
					first = false;
			if (!first)
				continue;
			if (f.index < ring->nbufs && ring->bufs[f.index].len) {
				f.reg_start = ring->bufs[f.index].addr;
				f.reg_end = f.reg_start + ring->bufs[f.index].len;
			}
			for (uint32_t k = i; k < pc->nhits; k++) {
				if (pc->hit_ctx[k] != reg->ctx ||
				    pc->hits[k].buf_index != f.index)
					continue;
				if (f.nr_live < UC_MAX_LIVE_SHOWN)
					f.live[f.nr_live] = pc->hits[k];
				f.nr_live++;
			}
			f.key = uc_key_mix(uc_key_mix(op, stacks_site_key(&ck->stacks, c->stack_id)),
					   stacks_site_key(&ck->stacks, f.live[0].stack_id));
			report_bufreg(ck->report, &f);
		}
	}
	/* The table is the model's; this rule writes it, as the one that
	 * kept the registration's iovecs since the call entered. */
	switch (op) {
	case REG_BUFFERS:
	case REG_BUFFERS2:
		tracker_bufs_clear(ring);
		tracker_bufs_set(ring, 0, c->reg_nr, pc->regs, pc->nregs);
		tracker_bufs_stack(&ck->model, ring, c->stack_id);
		break;
	case REG_UNREGISTER_BUFFERS:
		tracker_bufs_clear(ring);
		tracker_bufs_stack(&ck->model, ring, 0);
		break;
	case REG_BUFFERS_UPDATE:
		tracker_bufs_set(ring, c->reg_offset, c->reg_nr, pc->regs, pc->nregs);
		break;
	}
}

/* ---- sync-overlap ------------------------------------------------------- */

struct sync_scan {
	struct uc_check *ck;
	struct pending_call *pc;
	uint64_t qstart, qend;
};

static void sync_hit(struct itree_node *n, void *arg)
{
	struct sync_scan *s = arg;
	struct pending_call *pc = s->pc;
	const struct uc_request *r = n->owner;
	bool spans_loss;

	/* A store against any request's bytes, a load against a read's
	 * (two loads do not conflict). A load from a read's buffer is
	 * ordered when the read waits on the channel the call writes to: the
	 * data flows from one to the other (bpf/channels.bpf.h). A store
	 * from the pipe or socket an in-flight write waits to send into is
	 * not ordered: a write still in flight when the call runs waits for
	 * room (it copied nothing yet, or part of it in io-wq), so the call
	 * gets the channel's older bytes. */
	if (pc->call.dir == UC_DIR_SOURCE && r->sub.direction != UC_DIR_SINK)
		return;
	if (pc->call.dir == UC_DIR_SOURCE &&
	    (pc->call.channel == UC_CHANNEL_UNKNOWN ||
	     (pc->call.channel && pc->call.channel == r->channel)))
		return;
	/* A load whose read's channel is not known while events were lost
	 * since the read's submission: its channel record may be among
	 * them. A provided buffer attached before a loss may be gone. */
	if ((pc->call.dir == UC_DIR_SOURCE && !r->channel &&
	     evidence_lost_since(&s->ck->ev, r)) || evidence_pick_doubtful(&s->ck->ev, n)) {
		pc->withheld++;
		return;
	}
	for (uint32_t i = 0; i < pc->nhits; i++)
		if (pc->hits[i].seq == r->sub.seq)
			return;		/* one finding per request */
	if (evidence_judge(&s->ck->ev, r, &spans_loss) == UC_WITHHELD) {
		pc->withheld++;
		return;
	}
	pc->spans_loss |= spans_loss;
	add_hit(s->ck, pc, r, n->start, n->end, n->start > s->qstart ? n->start : s->qstart,
		n->end < s->qend ? n->end : s->qend);
}

/* The call's ranges (inline, then continuation records) into pc->regs. */
static void call_ranges(struct uc_check *ck, struct pending_call *pc)
{
	const struct uc_call *c = &pc->call;
	uint32_t more = 0, n = c->nr_inline < UC_INLINE_RANGES ? c->nr_inline : UC_INLINE_RANGES;
	struct uc_range *extra = c->nr_ranges > n ? tracker_take_ranges(&ck->model, c->seq, &more) : NULL;

	pc->regs = xmalloc((n + more + 1) * sizeof(*pc->regs));
	memcpy(pc->regs, c->ranges, n * sizeof(*pc->regs));
	if (extra)
		memcpy(pc->regs + n, extra, more * sizeof(*pc->regs));
	free(extra);
	pc->nregs = n + more;
}

static void sync_enter(struct uc_check *ck, struct pending_call *pc)
{
	struct uc_aspace *as = u64map_get(&ck->model.aspaces, pc->call.hdr.tgid);
	struct sync_scan s = { .ck = ck, .pc = pc };

	call_ranges(ck, pc);
	if (!as)
		return;
	evidence_refresh(&ck->ev, &ck->model);
	for (uint32_t i = 0; i < pc->nregs; i++) {
		s.qstart = pc->regs[i].addr;
		s.qend = s.qstart + pc->regs[i].len;
		if (s.qend <= s.qstart)
			continue;
		itree_query(&as->ranges, s.qstart, s.qend, sync_hit, &s);
	}
}

/* Bytes of [start, end) among the first @moved bytes of the call's
 * ranges [first, first + n) (what it really stored or loaded); the first
 * such piece goes to *ps, *pe unless one was found before (*ps != *pe). */
static uint64_t moved_overlap(const struct pending_call *pc, uint32_t first, uint32_t n,
			      uint64_t moved, uint64_t start, uint64_t end,
			      uint64_t *ps, uint64_t *pe)
{
	uint64_t got = 0;

	for (uint32_t i = first; i < first + n && i < pc->nregs && moved; i++) {
		uint64_t len = pc->regs[i].len < moved ? pc->regs[i].len : moved;
		uint64_t s = pc->regs[i].addr, e = s + len;

		moved -= len;
		s = s > start ? s : start;
		e = e < end ? e : end;
		if (s >= e)
			continue;
		if (*ps == *pe) {
			*ps = s;
			*pe = e;
		}
		got += e - s;
	}
	return got;
}

/* What the call moved of [start, end): a prefix of its ranges for the
 * plain calls (@ret bytes), of each message's ranges for recvmmsg and
 * sendmmsg (@ret messages, each msg_len bytes). */
static uint64_t call_moved_overlap(const struct pending_call *pc, const struct uc_call_ret *r,
				   uint64_t start, uint64_t end, uint64_t *ps, uint64_t *pe)
{
	const struct uc_call *c = &pc->call;
	uint64_t got = 0;
	uint32_t first = 0;

	*ps = *pe = 0;
	if (c->nr != UC_NR_RECVMMSG && c->nr != UC_NR_SENDMMSG)
		return moved_overlap(pc, 0, pc->nregs, (uint64_t)r->ret, start, end, ps, pe);
	for (uint32_t m = 0; m < c->nmsg && m < UC_MMSG_MAX && m < (uint64_t)r->ret; m++) {
		got += moved_overlap(pc, first, c->msg_ranges[m], r->msg_len[m], start, end,
				     ps, pe);
		first += c->msg_ranges[m];
	}
	return got;
}

/* Bytes the call moved in all: for the mmsg calls, its messages' lengths. */
static int64_t call_moved(const struct uc_call *c, const struct uc_call_ret *r)
{
	int64_t sum = 0;

	if (c->nr != UC_NR_RECVMMSG && c->nr != UC_NR_SENDMMSG)
		return r->ret;
	for (uint32_t m = 0; m < c->nmsg && m < UC_MMSG_MAX && m < (uint64_t)r->ret; m++)
		sum += r->msg_len[m];
	return sum;
}

static void sync_ret(struct uc_check *ck, struct pending_call *pc,
		     const struct uc_call_ret *r)
{
	const struct uc_call *c = &pc->call;
	int64_t ret = call_moved(c, r);

	/* Messages the call moved that were not judged: said at exit. */
	if ((c->nr == UC_NR_RECVMMSG || c->nr == UC_NR_SENDMMSG) && r->ret > 0) {
		if ((uint64_t)r->ret > c->nmsg)
			ck->mmsg_unjudged += (uint64_t)r->ret - c->nmsg;
		ck->mmsg_cut += c->msg_cut;
	}
	if (ret <= 0)
		return;		/* nothing moved */
	report_withheld(ck->report, UC_KIND_SYNC_OVERLAP, pc->withheld);
	for (uint32_t i = 0; i < pc->nhits; i++) {
		struct uc_sync_finding f = {
			.tgid = c->hdr.tgid, .tid = c->hdr.tid, .nr = c->nr, .dir = c->dir,
			.moved = ret, .call_stack_id = c->stack_id, .req = pc->hits[i],
			.spans_loss = pc->spans_loss,
		};

		if (!call_moved_overlap(pc, r, pc->hit_start[i], pc->hit_end[i],
					&f.start, &f.end))
			continue;
		f.key = uc_key_mix(uc_key_mix(c->nr, stacks_site_key(&ck->stacks, c->stack_id)),
				   stacks_site_key(&ck->stacks, f.req.stack_id));
		report_sync_overlap(ck->report, &f);
	}
}

/* ---- the rule's hooks ---------------------------------------------------- */

struct calls_rule {
	struct u64map calls;		/* tid -> system call in progress */
};

static void *calls_init(struct uc_check *ck)
{
	struct calls_rule *st = xcalloc(1, sizeof(*st));

	u64map_init(&st->calls);
	return st;
}

static void on_call(void *arg, struct uc_check *ck, const struct uc_call *c)
{
	struct calls_rule *st = arg;
	struct pending_call *pc = xcalloc(1, sizeof(*pc));

	pc->call = *c;
	stacks_ref(&ck->stacks, c->stack_id);
	if (c->dir != UC_DIR_NONE)
		sync_enter(ck, pc);
	else if (c->nr == UC_NR_IO_URING_REGISTER)
		register_enter(ck, pc);
	else
		unmap_enter(ck, pc);
	/* One call in progress per thread: one still held never returned. */
	pending_gone(ck, u64map_put(&st->calls, c->hdr.tid, pc));
}

static void on_call_ret(void *arg, struct uc_check *ck, const struct uc_call_ret *r)
{
	struct calls_rule *st = arg;
	struct pending_call *pc = u64map_get(&st->calls, r->hdr.tid);

	if (!pc || pc->call.nr != r->nr)
		return;
	u64map_del(&st->calls, r->hdr.tid);
	if (pc->call.dir != UC_DIR_NONE)
		sync_ret(ck, pc, r);
	else
		unmap_ret(ck, pc, r->ret);
	pending_free(ck, pc);
}

static void on_register(void *arg, struct uc_check *ck, const struct uc_register *r)
{
	struct calls_rule *st = arg;
	struct pending_call *pc = u64map_get(&st->calls, r->hdr.tid);

	if (!pc || pc->call.nr != UC_NR_IO_URING_REGISTER)
		return;
	u64map_del(&st->calls, r->hdr.tid);
	register_done(ck, pc, r);
	pending_free(ck, pc);
}

static void free_call_cb(uint64_t key, void *val, void *arg)
{
	(void)key;
	pending_free(arg, val);
}

static void gone_call_cb(uint64_t key, void *val, void *arg)
{
	(void)key;
	pending_gone(arg, val);
}

/* The run's end: calls still waiting for their return never had it. */
static void calls_finish(void *arg, struct uc_check *ck)
{
	struct calls_rule *st = arg;

	u64map_each(&st->calls, gone_call_cb, ck);
	u64map_free(&st->calls);
	u64map_init(&st->calls);
}

static void calls_free(void *arg, struct uc_check *ck)
{
	struct calls_rule *st = arg;

	u64map_each(&st->calls, free_call_cb, ck);
	u64map_free(&st->calls);
	free(st);
}

const struct uc_check_rule uc_rule_calls = {
	.name = "calls",
	.init = calls_init,
	.on_call = on_call,
	.on_call_ret = on_call_ret,
	.on_register = on_register,
	.finish = calls_finish,
	.free = calls_free,
};
