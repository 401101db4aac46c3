// SPDX-License-Identifier: GPL-2.0
/*
 * The Perfetto timeline of a trace (--trace=FILE): from the records of
 * bpf/trace.h, in time order, to tracks, slices, flows and counters
 * (docs/trace.md shows what is where):
 *
 *   process "prog (pid)"
 *     thread "prog" ............ io_uring_enter/register/setup slices
 *     thread "iou-wrk-N" ....... on-CPU slices; "ran READ" instants
 *     "ring fd 3" .............. instants of CQEs of no request's end
 *       "requests 0", "1", ... . one slice per request (per CQE for
 *                                multishot), packed into the lowest free
 *                                lane: Perfetto slices on one track nest,
 *                                requests in flight together do not
 *       "CQE consumed" ......... when the program's CQ head passed a CQE
 *       counters ............... in flight, SQ depth, CQ depth
 *
 * Each request is a flow: its slice, "poll armed" or "punted to io-wq" on
 * its lane, "ran OPCODE" on the worker that completed it, its end. Link
 * chains are one more flow through their members.
 */
#include "timeline.h"

#include <stdlib.h>
#include <string.h>

#include "freelist.h"
#include "opcode_names.h"
#include "pb_stream.h"
#include "u64map.h"

#define T_BEGIN		PB_SLICE_BEGIN
#define T_END		PB_SLICE_END
#define T_INSTANT	PB_INSTANT
#define T_COUNTER	PB_COUNTER
#define CQE_F_MORE	(1u << 1)
#define POSTED_MAX	4096		/* CQEs remembered until consumed, per ring */

/* The event names made of an opcode's name. */
enum { OPNAME_SLICE, OPNAME_NEXT_CQE, OPNAME_RAN, OPNAME_KINDS };

struct proc {
	uint64_t uuid;
	char name[17];
};

struct thread {
	uint64_t uuid;
	uint32_t pid;
	bool in_call, on_cpu;
	uint32_t enter_cq_head;
};

struct lane {
	uint64_t uuid;
	uint64_t req;			/* 0: free */
};

struct posted {
	uint32_t pos;
	uint64_t user_data;
};

struct ring {
	uint64_t uuid, ctx;
	uint32_t pid;
	int fd;
	struct lane *lanes;
	int nlanes;
	int64_t inflight;
	uint64_t inflight_uuid, sq_uuid, cq_uuid, consumed_uuid;
	uint64_t chain_flow;		/* a link chain being submitted */
	uint64_t inflight_ts;		/* when the in-flight counter was last drawn */
	struct posted posted[POSTED_MAX];
	uint32_t posted_first, posted_n;
	uint64_t open_reqs;		/* for matching auxiliary CQEs */
};

struct req {
	struct ring *ring;
	int lane;
	uint64_t flow;
	bool flow_on;			/* an event carried its flow id */
	uint64_t user_data;
	uint64_t submit_ts;
	uint8_t opcode;
	uint8_t path;			/* 0 inline, 1 poll-armed, 2 punted */
	uint32_t worker;
	int32_t fd;
	uint32_t len;
	uint64_t off;
	uint8_t sqe_flags;
	uint32_t cqes;
};

struct timeline {
	struct pb_stream pb;
	struct u64map procs, threads, rings, reqs;
	uint64_t next_uuid, next_flow;
	uint64_t meta_uuid;		/* the "uringcheck" track: losses */
	/* the first ring's first request lane, and its in-flight, SQ and
	 * CQ depth tracks, reserved at open: the sequence's default track
	 * and extra counter tracks (pb_open) */
	uint64_t first_lane, first_counters[3];
	bool first_ring_seen;
	struct tl_stats st;
	struct freelist spare_reqs;	/* lib/freelist.h */
	/* event names per opcode, made at first use: they stay at their
	 * address, so the stream finds their iids without hashing them
	 * (pb_stream.h) */
	char op_names[256][OPNAME_KINDS][32];
};

static const char *const path_names[] = { "inline", "poll-armed", "punted" };

static uint64_t uuid(struct timeline *t)
{
	return ++t->next_uuid;
}

static const char *op_name(uint8_t op, char buf[16])
{
	return uc_opcode_name(op, buf);
}

/* "READ", "READ (next CQE)", "ran READ": from the timeline's table. */
static const char *op_event_name(struct timeline *t, uint8_t op, int kind)
{
	static const char *const fmt[OPNAME_KINDS] = { "%s", "%s (next CQE)", "ran %s" };
	char *name = t->op_names[op][kind], ob[16];

	if (!name[0])
		snprintf(name, sizeof(t->op_names[op][kind]), fmt[kind], op_name(op, ob));
	return name;
}

/* ---- tracks ----------------------------------------------------------- */

static struct proc *proc_of(struct timeline *t, uint32_t pid, const char *name)
{
	struct proc *p = u64map_get(&t->procs, pid);
	char path[64];

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->uuid = uuid(t);
	if (name) {
		snprintf(p->name, sizeof(p->name), "%.16s", name);
	} else {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%u/comm", pid);
		if ((f = fopen(path, "r"))) {
			if (fgets(p->name, sizeof(p->name), f))
				p->name[strcspn(p->name, "\n")] = 0;
			fclose(f);
		}
	}
	u64map_put(&t->procs, pid, p);
	pb_process_track(&t->pb, p->uuid, pid, p->name[0] ? p->name : NULL);
	return p;
}

static struct thread *thread_of(struct timeline *t, uint32_t pid, uint32_t tid,
				const char *name)
{
	struct thread *th = u64map_get(&t->threads, tid);
	char buf[32], path[64];

	if (th)
		return th;
	proc_of(t, pid, NULL);
	th = calloc(1, sizeof(*th));
	if (!th)
		return NULL;
	th->uuid = uuid(t);
	th->pid = pid;
	if (!name) {
		FILE *f;

		snprintf(buf, sizeof(buf), "%u", tid);
		snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
		if ((f = fopen(path, "r"))) {
			if (fgets(buf, sizeof(buf), f))
				buf[strcspn(buf, "\n")] = 0;
			fclose(f);
		}
		name = buf;
	}
	u64map_put(&t->threads, tid, th);
	pb_thread_track(&t->pb, th->uuid, pid, tid, name);
	return th;
}

static struct ring *ring_of(struct timeline *t, uint64_t ctx, uint32_t pid, int fd,
			    const char *comm)
{
	struct ring *r = u64map_get(&t->rings, ctx);
	struct proc *p;
	char name[64];

	if (r)
		return r;
	p = proc_of(t, pid, comm);
	r = calloc(1, sizeof(*r));
	if (!r || !p) {
		free(r);
		return NULL;
	}
	r->ctx = ctx;
	r->pid = pid;
	r->fd = fd;
	r->uuid = uuid(t);
	if (fd >= 0)
		snprintf(name, sizeof(name), "ring fd %d", fd);
	else
		snprintf(name, sizeof(name), "ring 0x%llx", (unsigned long long)ctx);
	pb_child_track(&t->pb, r->uuid, p->uuid, name, false);
	r->consumed_uuid = uuid(t);
	pb_child_track(&t->pb, r->consumed_uuid, r->uuid, "CQE consumed", false);
	r->inflight_uuid = t->first_ring_seen ? uuid(t) : t->first_counters[0];
	r->sq_uuid = t->first_ring_seen ? uuid(t) : t->first_counters[1];
	r->cq_uuid = t->first_ring_seen ? uuid(t) : t->first_counters[2];
	t->first_ring_seen = true;
	snprintf(name + strlen(name), sizeof(name) - strlen(name), ": in flight");
	pb_child_track(&t->pb, r->inflight_uuid, r->uuid, name, true);
	pb_child_track(&t->pb, r->sq_uuid, r->uuid, "SQ depth", true);
	pb_child_track(&t->pb, r->cq_uuid, r->uuid, "CQ depth", true);
	u64map_put(&t->rings, ctx, r);
	return r;
}

static int lane_take(struct timeline *t, struct ring *r, uint64_t req)
{
	char name[32];
	int i;

	for (i = 0; i < r->nlanes; i++)
		if (!r->lanes[i].req)
			break;
	if (i == r->nlanes) {
		struct lane *nl = realloc(r->lanes, (r->nlanes + 1) * sizeof(*nl));

		if (!nl)
			return -1;
		r->lanes = nl;
		r->lanes[i].uuid = i == 0 && r->inflight_uuid == t->first_counters[0] ?
				   t->first_lane : uuid(t);
		snprintf(name, sizeof(name), "requests %d", i);
		pb_child_track(&t->pb, r->lanes[i].uuid, r->uuid, name, false);
		r->nlanes++;
	}
	r->lanes[i].req = req;
	return i;
}

static void counter(struct timeline *t, uint64_t track, uint64_t ts, int64_t v);

/* The in-flight counter at most every 100 us between system calls (which
 * always draw it): a value per request would double the file. */
static void inflight(struct timeline *t, struct ring *r, uint64_t ts, bool always)
{
	if (!always && ts - r->inflight_ts < 100000)
		return;
	r->inflight_ts = ts;
	counter(t, r->inflight_uuid, ts, r->inflight);
}

static void counter(struct timeline *t, uint64_t track, uint64_t ts, int64_t v)
{
	pb_event_begin(&t->pb, T_COUNTER, track, NULL);
	pb_counter(&t->pb, v);
	pb_event_emit(&t->pb, ts);
}

/* ---- requests ------------------------------------------------------- */

static void request_begin(struct timeline *t, struct req *q, uint64_t ts, bool more)
{
	pb_event_begin(&t->pb, T_BEGIN, q->ring->lanes[q->lane].uuid,
		       op_event_name(t, q->opcode, more ? OPNAME_NEXT_CQE : OPNAME_SLICE));
	pb_annot_hex(&t->pb, "user_data", q->user_data);
	pb_annot_int(&t->pb, "fd", q->fd);
	if (q->len)
		pb_annot_uint(&t->pb, "len", q->len);
	if (q->off)
		pb_annot_uint(&t->pb, "offset", q->off);
	if (q->sqe_flags)
		pb_annot_hex(&t->pb, "sqe_flags", q->sqe_flags);
	if (q->flow_on)		/* a multishot request's next CQE */
		pb_flow(&t->pb, q->flow, false);
	pb_event_emit(&t->pb, ts);
	t->st.slices++;
}

static void request_end(struct timeline *t, struct req *q, uint64_t ts, int32_t res,
			bool final, const char *note)
{
	pb_event_begin(&t->pb, T_END, q->ring->lanes[q->lane].uuid, NULL);
	pb_annot_int(&t->pb, "res", res);
	pb_annot_istr(&t->pb, "path", path_names[q->path]);
	pb_annot_uint(&t->pb, "latency_ns", ts - q->submit_ts);
	if (q->worker)
		pb_annot_uint(&t->pb, "worker_tid", q->worker);
	if (note)
		pb_annot_istr(&t->pb, "note", note);
	if (final && q->flow_on) {
		pb_flow(&t->pb, q->flow, true);
		t->st.flows++;
	} else if (!final) {
		pb_flow(&t->pb, q->flow, false);
		q->flow_on = true;
	}
	pb_event_emit(&t->pb, ts);
}

static void request_free(struct timeline *t, uint64_t key, struct req *q, uint64_t ts)
{
	struct ring *r = q->ring;

	r->lanes[q->lane].req = 0;
	r->inflight--;
	r->open_reqs--;
	inflight(t, r, ts, false);
	u64map_del(&t->reqs, key);
	freelist_put(&t->spare_reqs, q);
}

static void on_submit(struct timeline *t, const struct tr_submit *s)
{
	struct ring *r = ring_of(t, s->ctx, s->h.pid, -1, NULL);
	struct req *q, *old;

	if (!r)
		return;
	/* a request slot reused before its end was seen: end the old one */
	if ((old = u64map_get(&t->reqs, s->req))) {
		request_end(t, old, s->h.ts, 0, true, "ended unseen (no CQE)");
		request_free(t, s->req, old, s->h.ts);
	}
	q = freelist_get(&t->spare_reqs, sizeof(*q));
	q->ring = r;
	q->lane = lane_take(t, r, s->req);
	if (q->lane < 0) {
		freelist_put(&t->spare_reqs, q);
		return;
	}
	q->flow = ++t->next_flow;
	q->user_data = s->user_data;
	q->submit_ts = s->h.ts;
	q->opcode = s->opcode;
	q->fd = s->fd;
	q->len = s->len;
	q->off = s->off;
	q->sqe_flags = s->sqe_flags;
	u64map_put(&t->reqs, s->req, q);
	r->inflight++;
	r->open_reqs++;
	t->st.requests++;
	if (!s->sqpoll)
		thread_of(t, s->h.pid, s->h.tid, NULL);
	request_begin(t, q, s->h.ts, false);
	/* link chains: one flow through the members, in submission order */
	if (s->link) {
		bool last = !(s->sqe_flags & 0x0c);	/* no IO_LINK/HARDLINK on it */

		if (!r->chain_flow)
			r->chain_flow = ++t->next_flow;
		pb_event_begin(&t->pb, T_INSTANT, r->lanes[q->lane].uuid, "link chain");
		pb_flow(&t->pb, r->chain_flow, last);
		pb_event_emit(&t->pb, s->h.ts);
		if (last) {
			r->chain_flow = 0;
			t->st.flows++;
		}
	}
	inflight(t, r, s->h.ts, false);
}

static void on_mark(struct timeline *t, const struct tr_mark *m)
{
	struct req *q = u64map_get(&t->reqs, m->req);

	if (!q)
		return;
	q->path = m->h.type == TR_PUNT ? 2 : q->path == 2 ? 2 : 1;
	pb_event_begin(&t->pb, T_INSTANT, q->ring->lanes[q->lane].uuid,
		       m->h.type == TR_PUNT ? "punted to io-wq" : "poll armed");
	pb_flow(&t->pb, q->flow, false);
	q->flow_on = true;
	pb_event_emit(&t->pb, m->h.ts);
}

/* An auxiliary CQE belongs to the open request of its ring with the same
 * user_data (a multishot one). */
struct aux_match {
	uint64_t ctx, user_data, key;
	struct req *q;
};

static void match_aux(uint64_t key, void *val, void *arg)
{
	struct aux_match *m = arg;
	struct req *q = val;

	if (!m->q && q->ring->ctx == m->ctx && q->user_data == m->user_data) {
		m->q = q;
		m->key = key;
	}
}

static void posted(struct ring *r, uint32_t pos, uint64_t user_data)
{
	if (r->posted_n == POSTED_MAX) {	/* never consumed: forget the oldest */
		r->posted_first = (r->posted_first + 1) % POSTED_MAX;
		r->posted_n--;
	}
	r->posted[(r->posted_first + r->posted_n) % POSTED_MAX] =
		(struct posted){ .pos = pos, .user_data = user_data };
	r->posted_n++;
}

static void on_complete(struct timeline *t, const struct tr_complete *c)
{
	struct ring *r = ring_of(t, c->ctx, c->h.pid, -1, NULL);
	uint64_t key = c->req;
	struct req *q = key ? u64map_get(&t->reqs, key) : NULL;
	bool more = c->cflags & CQE_F_MORE;

	if (!r)
		return;
	posted(r, c->cq_pos, c->user_data);
	if (!key && r->open_reqs) {
		struct aux_match m = { .ctx = c->ctx, .user_data = c->user_data };

		u64map_each(&t->reqs, match_aux, &m);
		q = m.q;
		key = m.key;
		more = true;	/* an auxiliary CQE never ends its request */
	}
	if (!q) {
		char ob[16], name[40];

		snprintf(name, sizeof(name), "CQE %s", c->opcode != 0xff ?
			 op_name(c->opcode, ob) : "(no request)");
		pb_event_begin_text(&t->pb, T_INSTANT, r->uuid, name);
		pb_annot_hex(&t->pb, "user_data", c->user_data);
		pb_annot_int(&t->pb, "res", c->res);
		pb_event_emit(&t->pb, c->h.ts);
		return;
	}
	if (c->in_worker) {
		struct thread *w;
		char name[32];

		snprintf(name, sizeof(name), "iou-wrk-%u", c->h.tid);
		w = thread_of(t, c->h.pid, c->h.tid, name);
		q->worker = c->h.tid;
		/* a link chain's next member runs in the worker that ran the
		 * one before, without a punt of its own */
		q->path = 2;
		if (w) {
			pb_event_begin(&t->pb, T_INSTANT, w->uuid,
				       op_event_name(t, q->opcode, OPNAME_RAN));
			pb_flow(&t->pb, q->flow, false);
			q->flow_on = true;
			pb_event_emit(&t->pb, c->h.ts);
		}
	}
	q->cqes++;
	request_end(t, q, c->h.ts, c->res, !more, NULL);
	if (more) {
		/* multishot: the next CQE's slice begins where this one ended */
		request_begin(t, q, c->h.ts, true);
		return;
	}
	request_free(t, key, q, c->h.ts);
}

/* ---- system calls and threads ----------------------------------------- */

/* The CQEs the program's CQ head passed by this system call: one instant
 * for them all (they are drawn at the same time), their user_data (an
 * array: its length is their count) and the CQ index of the first (and
 * every index, when they are not in a row: a CQE's record lost). At most
 * CONSUMED_MAX an instant. */
#define CONSUMED_MAX 64

static void consumed(struct timeline *t, struct ring *r, uint32_t head, uint64_t ts)
{
	uint64_t ud[CONSUMED_MAX], pos[CONSUMED_MAX];
	int n;

	do {
		bool in_a_row = true;

		for (n = 0; n < CONSUMED_MAX && r->posted_n; n++) {
			struct posted *p = &r->posted[r->posted_first];

			if ((int32_t)(head - p->pos) <= 0)
				break;
			ud[n] = p->user_data;
			pos[n] = p->pos;
			if (n && (uint32_t)(pos[n] - pos[n - 1]) != 1)
				in_a_row = false;
			r->posted_first = (r->posted_first + 1) % POSTED_MAX;
			r->posted_n--;
		}
		if (!n)
			break;
		pb_event_begin(&t->pb, T_INSTANT, r->consumed_uuid, "CQEs consumed");
		pb_annot_uint(&t->pb, "cq_index", pos[0]);
		if (!in_a_row)
			pb_annot_uint_array(&t->pb, "cq_indexes", pos, n);
		pb_annot_hex_array(&t->pb, "user_data", ud, n);
		pb_event_emit(&t->pb, ts);
	} while (n == CONSUMED_MAX);
}

/* The ring's counters at a system call, on the call's own event (extra
 * counter values: three values instead of three packets). Before the
 * event is emitted; consumed() after it. */
static void ring_depths(struct timeline *t, const struct tr_syscall *s)
{
	struct ring *r = s->ctx ? u64map_get(&t->rings, s->ctx) : NULL;

	if (!r)
		return;
	r->inflight_ts = s->h.ts;
	pb_extra_counter(&t->pb, r->inflight_uuid, r->inflight);
	pb_extra_counter(&t->pb, r->sq_uuid, (int32_t)(s->sq_tail - s->sq_head));
	pb_extra_counter(&t->pb, r->cq_uuid, (int32_t)(s->cq_tail - s->cq_head));
}

static void ring_consumed(struct timeline *t, const struct tr_syscall *s)
{
	struct ring *r = s->ctx ? u64map_get(&t->rings, s->ctx) : NULL;

	if (r)
		consumed(t, r, s->cq_head, s->h.ts);
}

static const char *call_name(uint32_t nr)
{
	return nr == 426 ? "io_uring_enter" : nr == 427 ? "io_uring_register" : "io_uring_setup";
}

static void on_syscall(struct timeline *t, const struct tr_syscall *s)
{
	struct thread *th = thread_of(t, s->h.pid, s->h.tid, NULL);

	if (!th)
		return;
	if (s->h.type == TR_SYS_ENTER) {
		pb_event_begin(&t->pb, T_BEGIN, th->uuid, call_name(s->nr));
		if (s->nr == 426) {
			pb_annot_uint(&t->pb, "to_submit", s->arg[0]);
			pb_annot_uint(&t->pb, "min_complete", s->arg[1]);
			pb_annot_hex(&t->pb, "flags", s->arg[2]);
		} else if (s->nr == 427) {
			pb_annot_uint(&t->pb, "opcode", s->arg[0]);
			pb_annot_uint(&t->pb, "nr_args", s->arg[2]);
		} else {
			pb_annot_uint(&t->pb, "entries", s->arg[0]);
		}
		if (s->fd >= 0)
			pb_annot_int(&t->pb, "fd", s->fd);
		ring_depths(t, s);
		pb_event_emit(&t->pb, s->h.ts);
		th->in_call = true;
		th->enter_cq_head = s->cq_head;
		t->st.slices++;
	} else {
		if (!th->in_call)
			return;		/* began before the trace */
		pb_event_begin(&t->pb, T_END, th->uuid, NULL);
		pb_annot_int(&t->pb, "ret", s->ret);
		if (s->nr == 426 && s->ctx) {
			pb_annot_uint(&t->pb, "cqes_consumed_meanwhile",
				      s->cq_head - th->enter_cq_head);
			pb_annot_uint(&t->pb, "cqes_ready_at_exit", s->cq_tail - s->cq_head);
		}
		if (s->nr == 425 && s->ctx)	/* the ring it made (its tracks first) */
			ring_of(t, s->ctx, s->h.pid, s->fd, NULL);
		ring_depths(t, s);
		pb_event_emit(&t->pb, s->h.ts);
		th->in_call = false;
	}
	ring_consumed(t, s);
}

static void on_thread(struct timeline *t, const struct tr_thread *r)
{
	struct thread *th = thread_of(t, r->h.pid, r->h.tid, r->comm);

	if (!th || r->on == th->on_cpu)
		return;
	if (r->on) {
		pb_event_begin(&t->pb, T_BEGIN, th->uuid, "on CPU");
		pb_annot_uint(&t->pb, "cpu", r->h.cpu);
		pb_event_emit(&t->pb, r->h.ts);
	} else {
		pb_event_begin(&t->pb, T_END, th->uuid, NULL);
		pb_event_emit(&t->pb, r->h.ts);
	}
	th->on_cpu = r->on;
}

/* ---- the interface -------------------------------------------------------- */

struct timeline *tl_open(const char *path, char *err, size_t errlen)
{
	struct timeline *t = calloc(1, sizeof(*t));

	if (t) {	/* small uuids: one byte each up to 127 tracks */
		t->spare_reqs = (struct freelist){ .cap = 256 };
		t->first_lane = uuid(t);
		for (int i = 0; i < 3; i++)
			t->first_counters[i] = uuid(t);
	}
	if (!t || pb_open(&t->pb, path, t->first_lane, t->first_counters, 3)) {
		snprintf(err, errlen, "--trace=%s: %s", path, strerror(errno));
		if (t)
			pb_close(&t->pb);
		free(t);
		return NULL;
	}
	u64map_init(&t->procs);
	u64map_init(&t->threads);
	u64map_init(&t->rings);
	u64map_init(&t->reqs);
	t->meta_uuid = uuid(t);
	pb_child_track(&t->pb, t->meta_uuid, 0, "uringcheck", false);
	return t;
}

void tl_record(struct timeline *t, const void *rec, size_t size)
{
	const struct tr_hdr *h = rec;

	switch (h->type) {
	case TR_RING: {
		const struct tr_ring *r = rec;

		ring_of(t, r->ctx, h->pid, r->fd, r->comm);
		break;
	}
	case TR_SUBMIT:
		on_submit(t, rec);
		break;
	case TR_POLL_ARM:
	case TR_PUNT:
		on_mark(t, rec);
		break;
	case TR_COMPLETE:
		on_complete(t, rec);
		break;
	case TR_SYS_ENTER:
	case TR_SYS_EXIT:
		on_syscall(t, rec);
		break;
	case TR_THREAD:
		on_thread(t, rec);
		break;
	}
	(void)size;
}

struct ud_match {
	uint32_t pid;
	uint64_t user_data;
	struct req *q;
};

static void match_ud(uint64_t key, void *val, void *arg)
{
	struct ud_match *m = arg;
	struct req *q = val;

	if (!m->q && q->ring->pid == m->pid && q->user_data == m->user_data)
		m->q = q;
}

void tl_finding(struct timeline *t, uint64_t ts, uint32_t pid, bool has_ud,
		uint64_t user_data, const char *kind, const char *text)
{
	struct ud_match m = { .pid = pid, .user_data = user_data };
	struct proc *p = proc_of(t, pid, NULL);
	struct req *q;

	if (has_ud)
		u64map_each(&t->reqs, match_ud, &m);
	q = m.q;
	char name[64];

	snprintf(name, sizeof(name), "uringcheck: %s", kind);
	pb_event_begin_text(&t->pb, T_INSTANT, q ? q->ring->lanes[q->lane].uuid :
		       p ? p->uuid : t->meta_uuid, name);
	if (text)
		pb_annot_str(&t->pb, "report", text);
	if (q) {
		pb_flow(&t->pb, q->flow, false);
		q->flow_on = true;
	}
	pb_event_emit(&t->pb, ts);
	t->st.findings++;
}

struct end_ctx {
	struct timeline *t;
	uint64_t ts;
};

static void end_open(uint64_t key, void *val, void *arg)
{
	struct end_ctx *e = arg;
	struct req *q = val;

	request_end(e->t, q, e->ts, 0, true, "still in flight at the end of the trace");
}

static void end_thread(uint64_t key, void *val, void *arg)
{
	struct end_ctx *e = arg;
	struct thread *th = val;

	/* a slice left open would not nest with the next trace's: close it */
	if (th->in_call) {
		pb_event_begin(&e->t->pb, T_END, th->uuid, NULL);
		pb_event_emit(&e->t->pb, e->ts);
	}
	if (th->on_cpu) {
		pb_event_begin(&e->t->pb, T_END, th->uuid, NULL);
		pb_event_emit(&e->t->pb, e->ts);
	}
}

static void free_val(uint64_t key, void *val, void *arg)
{
	struct ring *r = arg ? val : NULL;

	if (r)
		free(r->lanes);
	free(val);
}

int tl_close(struct timeline *t, uint64_t ts_end, const uint64_t *lost,
	     uint64_t lost_total, struct tl_stats *out)
{
	static const char *const names[TR__COUNT] = {
		[TR_RING] = "lost_ring", [TR_SUBMIT] = "lost_submit",
		[TR_POLL_ARM] = "lost_poll_arm", [TR_PUNT] = "lost_punt",
		[TR_COMPLETE] = "lost_complete", [TR_SYS_ENTER] = "lost_syscall_enter",
		[TR_SYS_EXIT] = "lost_syscall_exit", [TR_THREAD] = "lost_thread",
	};
	struct end_ctx e = { .t = t, .ts = ts_end };
	int err;

	u64map_each(&t->reqs, end_open, &e);
	u64map_each(&t->threads, end_thread, &e);
	/* never silent: the losses are part of the trace */
	pb_event_begin(&t->pb, T_INSTANT, t->meta_uuid,
		       lost_total ? "events lost (the timeline lacks them)" : "no events lost");
	pb_annot_uint(&t->pb, "lost_total", lost_total);
	for (int i = 1; i < TR__COUNT && lost; i++)
		if (lost[i])
			pb_annot_uint(&t->pb, names[i], lost[i]);
	pb_event_emit(&t->pb, ts_end);
	t->st.lost = lost_total;
	t->st.packets = t->pb.packets;
	t->st.bytes = t->pb.bytes;
	err = pb_close(&t->pb);
	u64map_each(&t->reqs, free_val, NULL);
	freelist_drain(&t->spare_reqs);
	u64map_each(&t->procs, free_val, NULL);
	u64map_each(&t->threads, free_val, NULL);
	u64map_each(&t->rings, free_val, (void *)1);
	u64map_free(&t->reqs);
	u64map_free(&t->procs);
	u64map_free(&t->threads);
	u64map_free(&t->rings);
	if (out)
		*out = t->st;
	free(t);
	return err;
}
