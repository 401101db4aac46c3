// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "doctor.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "finding.h"
#include "opcode_names.h"
#include "xalloc.h"
#include <ctype.h>

/* ---- what the rules read: one process's share of the tables ----------- */

static void proc_op(const struct pf_snapshot *s, uint32_t tgid, unsigned op,
		    struct pf_op_stats *out)
{
	struct pf_op_stats one;

	memset(out, 0, sizeof(*out));
	for (uint32_t r = 0; r < s->nrings; r++) {
		if (s->rings[r].meta.tgid != tgid)
			continue;
		pf_op_total(s, (int)r, op, &one);
		for (size_t w = 0; w < sizeof(one) / 8; w++)
			((uint64_t *)out)[w] += ((uint64_t *)&one)[w];
	}
}

static const struct pf_proc *proc_of(const struct pf_snapshot *s, uint32_t tgid)
{
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].tgid == tgid)
			return &s->procs[i].p;
	return NULL;
}

/* The processes that have a ring, each once. */
static size_t ring_owners(const struct pf_snapshot *s, uint32_t *out, size_t max)
{
	size_t n = 0;

	for (uint32_t r = 0; r < s->nrings; r++) {
		size_t i;

		for (i = 0; i < n && out[i] != s->rings[r].meta.tgid; i++)
			;
		if (i == n && n < max)
			out[n++] = s->rings[r].meta.tgid;
	}
	return n;
}

#define MAX_PROCS 256
#define FOR_EACH_OWNER(s, tgid)						\
	uint32_t owners_[MAX_PROCS];					\
	size_t nowners_ = ring_owners(s, owners_, MAX_PROCS);		\
	for (size_t oi_ = 0; oi_ < nowners_ && ((tgid) = owners_[oi_], 1); oi_++)

/* ---- verdicts ---------------------------------------------------------- */

struct verdict_builder {
	struct doctor_verdict *v;
	FILE *body;
	size_t len;
};

static struct doctor_verdict *verdict_new(const struct doctor_rule *r, uint32_t pid,
					  struct doctor_verdict **v, size_t *n,
					  const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static struct doctor_verdict *verdict_new(const struct doctor_rule *r, uint32_t pid,
					  struct doctor_verdict **v, size_t *n,
					  const char *fmt, ...)
{
	struct doctor_verdict *nv = realloc(*v, (*n + 1) * sizeof(**v)), *d;
	va_list ap;

	if (!nv)
		return NULL;
	*v = nv;
	d = &nv[(*n)++];
	memset(d, 0, sizeof(*d));
	d->rule = r;
	d->pid = pid;
	va_start(ap, fmt);
	vsnprintf(d->title, sizeof(d->title), fmt, ap);
	va_end(ap);
	d->evidence = json_object_new_object();
	return d;
}

static void body_add(struct doctor_verdict *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void body_add(struct doctor_verdict *d, const char *fmt, ...)
{
	char line[512];
	size_t old = d->body ? strlen(d->body) : 0;
	va_list ap;
	char *nb;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	nb = realloc(d->body, old + strlen(line) + 4);
	if (!nb)
		return;
	d->body = nb;
	sprintf(nb + old, "  %s\n", line);
}

static void ev_u64(struct doctor_verdict *d, const char *k, uint64_t v)
{
	json_object_object_add(d->evidence, k, json_object_new_uint64(v));
}

static void ev_int(struct doctor_verdict *d, const char *k, int v)
{
	json_object_object_add(d->evidence, k, json_object_new_int(v));
}

static void ev_dbl(struct doctor_verdict *d, const char *k, double v)
{
	json_object_object_add(d->evidence, k, json_object_new_double(v));
}

static void ev_str(struct doctor_verdict *d, const char *k, const char *v)
{
	json_object_object_add(d->evidence, k, json_object_new_string(v));
}

static const char *dur(double ns, char *buf, size_t len)
{
	return pf_dur(ns, buf, len, true);
}

/* ---- the rules ---------------------------------------------------------- */

/*
 * punt-ratio: requests that ran in io-wq. 1000 punts: below that a worker
 * pool is not what shapes the tail; half of the opcode's requests: a punt
 * now and then (a page-cache miss) is the design. Opcodes the kernel
 * always runs in io-wq (FSYNC, STATX, the xattr and path operations:
 * lib/opcodes.def, async ALWAYS) are not judged: no flag, file type or
 * batching lets them run inline, so the advice cannot apply. Punts the
 * program asked for (IOSQE_ASYNC) count: the evidence says how many
 * carried the flag.
 */
#define PUNT_MIN	1000
#define PUNT_SHARE	0.5

static void judge_punts(const struct doctor_rule *r, const struct pf_snapshot *s,
			const struct pf_run_facts *f, struct doctor_verdict **v, size_t *n)
{
	uint32_t tgid;

	if (!f->paths)
		return;
	FOR_EACH_OWNER(s, tgid) {
		for (unsigned op = 0; op < PF_MAX_OPS; op++) {
			struct pf_op_stats t;
			uint64_t natural;
			struct doctor_verdict *d;
			char name[16], a[32], b[32];

			if (uc_opcode_always_async(op))
				continue;
			proc_op(s, tgid, op, &t);
			natural = t.punted;
			if (natural < PUNT_MIN || natural < PUNT_SHARE * t.completes)
				continue;
			pf_opname(op, name);
			d = verdict_new(r, tgid, v, n, "%s: %.0f%% of %llu requests went "
					"to the io-wq worker pool", name,
					100.0 * natural / t.completes,
					(unsigned long long)t.completes);
			if (!d)
				return;
			body_add(d, "%s: %llu requests, %llu ran in io-wq (%llu of them "
				 "flagged async at submission: IOSQE_ASYNC, or the "
				 "kernel's own choice for that request)", name,
				 (unsigned long long)t.completes,
				 (unsigned long long)natural, (unsigned long long)t.forced);
			body_add(d, "%s latency: p50 %s, p99 %s", name,
				 dur(pf_op_quantile(&t, 0.5), a, sizeof(a)),
				 dur(pf_op_quantile(&t, 0.99), b, sizeof(b)));
			ev_str(d, "opcode", name);
			ev_u64(d, "requests", t.completes);
			ev_u64(d, "punted", natural);
			ev_u64(d, "punted_forced", t.forced);
			ev_dbl(d, "ratio", (double)natural / t.completes);
			ev_dbl(d, "p99_ns", pf_op_quantile(&t, 0.99));
		}
	}
}

/*
 * batching: io_uring_enter calls that each submitted about one SQE. 1000
 * calls: a short program's set-up is not a pattern; 1.5 per call: a
 * workload that batches at all averages well above it.
 */
#define BATCH_MIN_CALLS	1000
#define BATCH_MAX_AVG	1.5

static void judge_batching(const struct doctor_rule *r, const struct pf_snapshot *s,
			   const struct pf_run_facts *f, struct doctor_verdict **v,
			   size_t *n)
{
	for (uint32_t i = 0; i < s->nrings; i++) {
		const struct pf_ring_view *rv = &s->rings[i];
		const struct pf_ring_stats *st = &rv->st;
		struct doctor_verdict *d;
		double avg;

		if (rv->meta.setup_flags & PF_SETUP_SQPOLL)
			continue;
		if (st->enters_submitting < BATCH_MIN_CALLS)
			continue;
		avg = (double)st->enter_sqes / st->enters_submitting;
		if (avg >= BATCH_MAX_AVG)
			continue;
		d = verdict_new(r, rv->meta.tgid, v, n, "ring fd %d: %.2f SQEs per "
				"io_uring_enter across %llu calls", rv->meta.fd, avg,
				(unsigned long long)st->enters_submitting);
		if (!d)
			return;
		body_add(d, "%llu io_uring_enter calls submitted %llu SQEs; one system "
			 "call per request is what io_uring exists to avoid",
			 (unsigned long long)st->enters_submitting,
			 (unsigned long long)st->enter_sqes);
		ev_int(d, "ring_fd", rv->meta.fd);
		ev_u64(d, "submitting_calls", st->enters_submitting);
		ev_u64(d, "sqes", st->enter_sqes);
		ev_dbl(d, "sqes_per_call", avg);
	}
}

/* cq-overflow: any CQE that had to wait on the overflow list. */
static void judge_overflow(const struct doctor_rule *r, const struct pf_snapshot *s,
			   const struct pf_run_facts *f, struct doctor_verdict **v,
			   size_t *n)
{
	for (uint32_t i = 0; i < s->nrings; i++) {
		const struct pf_ring_view *rv = &s->rings[i];
		struct doctor_verdict *d;

		if (!rv->st.cq_overflows)
			continue;
		d = verdict_new(r, rv->meta.tgid, v, n, "ring fd %d: %llu CQEs went to "
				"the overflow list", rv->meta.fd,
				(unsigned long long)rv->st.cq_overflows);
		if (!d)
			return;
		if (rv->meta.cq_entries)
			body_add(d, "the CQ ring (%u entries) was full when they were "
				 "posted; each took the slow path (allocation, lock)",
				 rv->meta.cq_entries);
		ev_int(d, "ring_fd", rv->meta.fd);
		ev_u64(d, "overflowed", rv->st.cq_overflows);
		ev_u64(d, "cq_entries", rv->meta.cq_entries);
	}
}

/* Results that are how an opcode normally ends, not failures. */
static int expected_error(unsigned op, int err)
{
	if (err == ECANCELED)
		return 1;
	if ((op == 11 || op == 15) && err == ETIME)	/* TIMEOUT, LINK_TIMEOUT */
		return 1;
	if ((op == 14 || op == 7 || op == 12) &&	/* ASYNC_CANCEL, POLL_REMOVE, */
	    (err == ENOENT || err == EALREADY))		/* TIMEOUT_REMOVE */
		return 1;
	return 0;
}

/*
 * error-flood: an opcode failing in bulk. 100 errors and 10% of its
 * requests: a retry loop or a dead descriptor, not one bad request.
 */
#define ERR_MIN		100
#define ERR_SHARE	0.10

static void judge_errors(const struct doctor_rule *r, const struct pf_snapshot *s,
			 const struct pf_run_facts *f, struct doctor_verdict **v, size_t *n)
{
	uint32_t tgid;

	FOR_EACH_OWNER(s, tgid) {
		for (unsigned op = 0; op < PF_MAX_OPS; op++) {
			uint64_t bad = 0, top_n = 0;
			int top = 0;
			struct pf_op_stats t;
			struct doctor_verdict *d;
			char name[16];

			for (size_t e = 0; e < s->nerrs; e++) {
				const struct pf_errno_view *ev = &s->errs[e];

				if (ev->opcode != op || expected_error(op, ev->err))
					continue;
				/* the error's ring must be this process's */
				int mine = 0;

				for (uint32_t ri = 0; ri < s->nrings; ri++)
					if (s->rings[ri].slot == ev->ring &&
					    s->rings[ri].meta.tgid == tgid)
						mine = 1;
				if (!mine)
					continue;
				bad += ev->n;
				if (ev->n > top_n) {
					top_n = ev->n;
					top = ev->err;
				}
			}
			if (bad < ERR_MIN)
				continue;
			if (uc_opcode_always_async(op))
				continue;
			proc_op(s, tgid, op, &t);
			if (bad < ERR_SHARE * t.completes)
				continue;
			pf_opname(op, name);
			d = verdict_new(r, tgid, v, n, "%s: %llu of %llu requests failed, "
					"most with -%s", name, (unsigned long long)bad,
					(unsigned long long)t.completes,
					strerrorname_np(top) ? strerrorname_np(top) : "?");
			if (!d)
				return;
			body_add(d, "%s failed %llu times with -%s (%s)", name,
				 (unsigned long long)top_n,
				 strerrorname_np(top) ? strerrorname_np(top) : "?",
				 strerror(top));
			ev_str(d, "opcode", name);
			ev_u64(d, "requests", t.completes);
			ev_u64(d, "errors", bad);
			ev_str(d, "top_errno", strerrorname_np(top) ? strerrorname_np(top) : "?");
			ev_u64(d, "top_errno_count", top_n);
		}
	}
}

/* On an SQPOLL ring every SQE is submitted by the poller. */
static uint64_t sqpoll_submits(const struct pf_snapshot *s, uint32_t tgid)
{
	uint64_t sum = 0;

	for (uint32_t r = 0; r < s->nrings; r++) {
		if (s->rings[r].meta.tgid != tgid ||
		    !(s->rings[r].meta.setup_flags & PF_SETUP_SQPOLL))
			continue;
		for (unsigned op = 0; op < PF_MAX_OPS; op++)
			sum += s->rings[r].ops[op].submits;
	}
	return sum;
}

/*
 * sqpoll-idle-burn: a poller that spins without work. Half a CPU for at
 * least a second, and fewer than 1000 SQEs per second of its CPU time (a
 * saturated poller submits hundreds of thousands).
 */
#define IDLE_MIN_WINDOW_S	1.0
#define IDLE_CPU_SHARE		0.5
#define IDLE_MAX_RATE		1000.0

static void judge_idle_burn(const struct doctor_rule *r, const struct pf_snapshot *s,
			    const struct pf_run_facts *f, struct doctor_verdict **v,
			    size_t *n)
{
	if (f->window_s < IDLE_MIN_WINDOW_S)
		return;
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct pf_proc_view *p = &s->procs[i];
		double oncpu = p->p.sqpoll_oncpu_ns / 1e9, rate;
		uint64_t subs;
		struct doctor_verdict *d;

		if (!p->p.sqpoll_threads || oncpu < IDLE_CPU_SHARE * f->window_s)
			continue;
		subs = sqpoll_submits(s, p->tgid);
		rate = subs / oncpu;
		if (rate >= IDLE_MAX_RATE)
			continue;
		d = verdict_new(r, p->tgid, v, n, "the SQPOLL thread was on a CPU %.0f%% "
				"of %.1f s and submitted %llu SQEs", 100 * oncpu / f->window_s,
				f->window_s, (unsigned long long)subs);
		if (!d)
			return;
		body_add(d, "%.2f s on CPU for %llu SQEs (%.0f per second on CPU): it "
			 "mostly polled an empty ring", oncpu, (unsigned long long)subs, rate);
		ev_dbl(d, "sqpoll_oncpu_s", oncpu);
		ev_dbl(d, "window_s", f->window_s);
		ev_u64(d, "sqpoll_sqes", subs);
		ev_dbl(d, "sqes_per_oncpu_s", rate);
	}
}

/*
 * sqpoll-stall: the poller keeps going to sleep, so submissions wait for
 * a wake-up (a system call and a thread wake-up each). 100 wake-ups, and
 * one for every four SQEs or worse; or, on a sparse ring, 8 wake-ups when
 * three SQEs in four or more needed one. The floor of 100 keeps a busy
 * ring quiet that wakes its poller a few times between phases; when
 * nearly every SQE wakes it there is no such doubt: SQPOLL saved no
 * system call, added a wake-up to each request and spun sq_thread_idle
 * after each (the poller's CPU time per SQE says how much).
 */
#define STALL_MIN_WAKEUPS	100
#define STALL_SHARE		0.25
#define STALL_SPARSE_MIN	8
#define STALL_SPARSE_SHARE	0.75

static void judge_stall(const struct doctor_rule *r, const struct pf_snapshot *s,
			const struct pf_run_facts *f, struct doctor_verdict **v, size_t *n)
{
	uint32_t tgid;

	FOR_EACH_OWNER(s, tgid) {
		uint64_t wake = 0, subs = sqpoll_submits(s, tgid);
		struct doctor_verdict *d;

		for (uint32_t i = 0; i < s->nrings; i++)
			if (s->rings[i].meta.tgid == tgid)
				wake += s->rings[i].st.sq_wakeups;
		const struct pf_proc *pp = proc_of(s, tgid);
		bool sparse;

		if (wake < STALL_SPARSE_MIN || wake < STALL_SHARE * subs)
			continue;
		sparse = wake >= STALL_SPARSE_SHARE * subs;
		if (wake < STALL_MIN_WAKEUPS && !sparse)
			continue;
		d = verdict_new(r, tgid, v, n, "the SQPOLL thread had to be woken %llu "
				"times for %llu SQEs", (unsigned long long)wake,
				(unsigned long long)subs);
		if (!d)
			return;
		body_add(d, "io_uring_enter(IORING_ENTER_SQ_WAKEUP) %llu times: the "
			 "poller slept (sq_thread_idle ran out) between submissions",
			 (unsigned long long)wake);
		if (sparse && pp && subs)
			body_add(d, "a sparse ring: SQPOLL saved no system call, and its "
				 "thread spent %.1f ms on a CPU per SQE (%.2f s in all)",
				 pp->sqpoll_oncpu_ns / 1e6 / subs, pp->sqpoll_oncpu_ns / 1e9);
		ev_int(d, "sparse", sparse);
		ev_u64(d, "wakeups", wake);
		ev_u64(d, "sqpoll_sqes", subs);
		ev_dbl(d, "wakeups_per_sqe", subs ? (double)wake / subs : 0);
	}
}

/*
 * worker-fan-out: more io-wq workers alive at once than the bounded pool
 * can have (4 per CPU): unbounded work, each blocked request a thread.
 * At least 16, so a small machine's normal pool never trips it.
 */
#define FANOUT_PER_CPU	4
#define FANOUT_MIN	16

static void judge_fanout(const struct doctor_rule *r, const struct pf_snapshot *s,
			 const struct pf_run_facts *f, struct doctor_verdict **v, size_t *n)
{
	uint32_t bounded = FANOUT_PER_CPU * (f->ncpus > 0 ? f->ncpus : 1);

	for (size_t i = 0; i < f->npeaks; i++) {
		const struct pf_peak *p = &f->peaks[i];
		const struct pf_proc *pp = proc_of(s, p->tgid);
		struct doctor_verdict *d;

		if (p->workers <= bounded || p->workers < FANOUT_MIN)
			continue;
		d = verdict_new(r, p->tgid, v, n, "%u io-wq workers alive at once "
				"(%d CPUs)", p->workers, f->ncpus);
		if (!d)
			return;
		body_add(d, "peak %u iou-wrk threads (sampled each second), %u seen "
			 "in all; the bounded pool stops at %d per CPU, so these are "
			 "unbounded (blocking) requests, one thread each", p->workers,
			 pp ? pp->workers : 0, FANOUT_PER_CPU);
		ev_u64(d, "peak_workers", p->workers);
		ev_u64(d, "workers_seen", pp ? pp->workers : 0);
		ev_u64(d, "cpus", f->ncpus);
	}
}

/*
 * short-writes: WRITE/WRITE_FIXED/SEND that moved fewer bytes than asked
 * without an error; the program must resubmit the rest. 10, and 1% of
 * the opcode's requests: one at the end of a disk is not a pattern.
 */
#define SHORT_MIN	10
#define SHORT_SHARE	0.01

static void judge_short(const struct doctor_rule *r, const struct pf_snapshot *s,
			const struct pf_run_facts *f, struct doctor_verdict **v, size_t *n)
{
	uint32_t tgid;

	FOR_EACH_OWNER(s, tgid) {
		for (unsigned op = 0; op < PF_MAX_OPS; op++) {
			struct pf_op_stats t;
			struct doctor_verdict *d;
			char name[16];

			if (uc_opcode_always_async(op))
				continue;
			proc_op(s, tgid, op, &t);
			if (t.short_writes < SHORT_MIN || t.short_writes < SHORT_SHARE * t.completes)
				continue;
			pf_opname(op, name);
			d = verdict_new(r, tgid, v, n, "%s: %llu of %llu requests moved "
					"fewer bytes than asked", name,
					(unsigned long long)t.short_writes,
					(unsigned long long)t.completes);
			if (!d)
				return;
			body_add(d, "a short %s is success (res >= 0); unless the program "
				 "resubmits the rest, data is missing", name);
			ev_str(d, "opcode", name);
			ev_u64(d, "requests", t.completes);
			ev_u64(d, "short", t.short_writes);
		}
	}
}

/* left-in-flight and the hazards: the checker's findings, when it ran. */
static void judge_left(const struct doctor_rule *r, const struct pf_snapshot *s,
		       const struct pf_run_facts *f, struct doctor_verdict **v, size_t *n)
{
	for (int i = 0; f->checked && i < f->nhazards; i++) {
		const struct pf_hazard_count *h = &f->hazards[i];
		struct doctor_verdict *d;

		if (strcmp(h->kind, "left-in-flight") || !h->n)
			continue;
		d = verdict_new(r, 0, v, n, "%llu teardown%s left requests in flight",
				(unsigned long long)h->n, h->n == 1 ? "" : "s");
		if (!d)
			return;
		body_add(d, "their latency is not in the tables above: they never "
			 "ended on their own (the checker's left-in-flight reports)");
		ev_u64(d, "teardowns", h->n);
	}
}

static void judge_hazards(const struct doctor_rule *r, const struct pf_snapshot *s,
			  const struct pf_run_facts *f, struct doctor_verdict **v,
			  size_t *n)
{
	for (int i = 0; f->checked && i < f->nhazards; i++) {
		const struct pf_hazard_count *h = &f->hazards[i];
		struct doctor_verdict *d;

		if (!h->n || !strcmp(h->kind, "left-in-flight"))
			continue;
		d = verdict_new(r, 0, v, n, "the checker found %llu %s finding%s (%s)",
				(unsigned long long)h->n, h->kind, h->n == 1 ? "" : "s",
				h->severity);
		if (!d)
			return;
		body_add(d, "see its reports above: a memory hazard makes latency "
			 "numbers beside the point until it is fixed");
		ev_str(d, "kind", h->kind);
		ev_u64(d, "count", h->n);
	}
}

/*
 * fidelity: the profile's own limits, so its numbers are never taken for
 * more than they are. Any truncation; unseen requests above 1% (a few
 * are normal when attaching to a running program).
 */
static void judge_fidelity(const struct doctor_rule *r, const struct pf_snapshot *s,
			   const struct pf_run_facts *f, struct doctor_verdict **v,
			   size_t *n)
{
	uint64_t unseen = 0, ends = 0, evicted = 0, folded = 0;
	uint64_t rings_out = s->stats[PF_STAT_RINGS_UNPROFILED];
	uint64_t reqs_out = s->stats[PF_STAT_REQS_UNPROFILED];
	uint64_t thr = s->stats[PF_STAT_THREADS_FULL], procs = s->stats[PF_STAT_PROCS_FULL];
	uint64_t errnos = s->stats[PF_STAT_ERRNO_FULL];
	struct doctor_verdict *d;

	for (uint32_t i = 0; i < s->nrings; i++) {
		if (s->rings[i].meta.fd == PF_FD_FOLDED)
			folded = s->folded_rings;
		evicted += s->rings[i].st.evicted;
		for (unsigned op = 0; op < PF_MAX_OPS; op++) {
			unseen += s->rings[i].ops[op].unseen;
			ends += s->rings[i].ops[op].completes;
		}
	}
	if (!rings_out && !reqs_out && !thr && !procs && !errnos && !evicted &&
	    unseen <= ends / 100 && !f->check_events_lost && !folded)
		return;
	d = verdict_new(r, 0, v, n, "the numbers above are incomplete");
	if (!d)
		return;
	if (rings_out || reqs_out)
		body_add(d, "%llu rings (%llu requests) were not profiled: all "
			 "--profile-rings=%u slots held rings still open when they "
			 "came", (unsigned long long)rings_out,
			 (unsigned long long)reqs_out, f->max_rings);
	if (folded)
		body_add(d, "%llu closed rings are added up in one row (\"closed "
			 "rings\"), past the first %d kept one by one: counted "
			 "exactly, not judged ring by ring", (unsigned long long)folded,
			 PF_RETIRED_MAX);
	if (unseen > ends / 100)
		body_add(d, "%llu of %llu requests ended without their submission "
			 "seen (submitted before the profile began): counted, not timed",
			 (unsigned long long)unseen, (unsigned long long)ends);
	if (evicted > ends / 1000)
		body_add(d, "%llu requests lost their timing (more than %d in flight "
			 "hashed to one slot)", (unsigned long long)evicted, PF_REQ_SLOTS);
	if (thr || procs || errnos)
		body_add(d, "tables full: %llu io-wq/SQPOLL threads, %llu processes, "
			 "%llu errors by errno not recorded", (unsigned long long)thr,
			 (unsigned long long)procs, (unsigned long long)errnos);
	if (f->check_events_lost)
		body_add(d, "the checker lost %llu events (see its warning)",
			 (unsigned long long)f->check_events_lost);
	ev_u64(d, "rings_unprofiled", rings_out);
	ev_u64(d, "requests_unprofiled", reqs_out);
	ev_u64(d, "rings_folded", folded);
	ev_u64(d, "requests_untimed", unseen);
	ev_u64(d, "requests_evicted", evicted);
	ev_u64(d, "threads_not_recorded", thr);
	ev_u64(d, "processes_not_followed", procs);
	ev_u64(d, "errors_not_by_errno", errnos);
	ev_u64(d, "check_events_lost", f->check_events_lost);
}

static const struct doctor_rule rules[] = {
	{ "punt-ratio", "warning",
	  "An opcode's requests mostly run in the io-wq worker pool instead of inline.",
	  "Each punt costs a thread hand-off and shapes the tail. Requests "
	  "flagged IOSQE_ASYNC, reads of files without non-blocking reads "
	  "(tmpfs on older kernels), buffered writes on filesystems without "
	  "async buffered writes and page-cache misses punt: drop IOSQE_ASYNC "
	  "where the data is cached, use O_DIRECT, or move them off the latency "
	  "path. Opcodes the kernel always runs in io-wq (--list-ops) are not "
	  "judged.", judge_punts },
	{ "batching", "note",
	  "io_uring_enter submits about one SQE per call.",
	  "Queue several SQEs before io_uring_submit(); if each request depends "
	  "on the one before, link them (IOSQE_IO_LINK) and submit the chain in "
	  "one call, or use SQPOLL.", judge_batching },
	{ "cq-overflow", "warning",
	  "CQEs did not fit the CQ ring and went to the overflow list.",
	  "Reap completions before submitting more than the CQ ring holds, or "
	  "size it with IORING_SETUP_CQSIZE (cq_entries) for the requests in flight.",
	  judge_overflow },
	{ "error-flood", "warning",
	  "An opcode fails in bulk (expected results such as -ETIME of a TIMEOUT excluded).",
	  "Look at the first failure's cause (the errno named); a retry loop "
	  "around a dead descriptor or a full resource burns CPU and hides it.",
	  judge_errors },
	{ "sqpoll-idle-burn", "warning",
	  "The SQPOLL thread spins on a CPU with almost nothing to submit.",
	  "Lower sq_thread_idle so the poller sleeps between bursts, or drop "
	  "SQPOLL for a sparse workload: it costs a CPU.", judge_idle_burn },
	{ "sqpoll-stall", "warning",
	  "The SQPOLL thread keeps falling asleep, so submissions wait for a wake-up.",
	  "Raise sq_thread_idle above the gap between bursts (milliseconds), or "
	  "submit in larger batches; each wake-up is a system call plus a "
	  "thread wake-up on the latency path.", judge_stall },
	{ "worker-fan-out", "warning",
	  "More io-wq workers are alive at once than the bounded pool allows: "
	  "each blocking request holds a thread.",
	  "Cap the pool with io_uring_register_iowq_max_workers(), and do not "
	  "force IOSQE_ASYNC on requests that block indefinitely (pipe or socket "
	  "reads): without it they are poll-driven and hold no thread.", judge_fanout },
	{ "short-writes", "warning",
	  "Writes or sends completed with fewer bytes than asked.",
	  "A short write is a success: resubmit the remaining bytes from where "
	  "it stopped, or use a blocking descriptor (a full pipe or socket "
	  "buffer returns short on a non-blocking one).", judge_short },
	{ "left-in-flight", "warning",
	  "Requests were left in flight when a ring or process went away (from the checker).",
	  "Cancel and reap every request before tearing down; see the checker's "
	  "left-in-flight reports for where they were submitted.", judge_left },
	{ "hazards", "warning",
	  "The checker found io_uring memory hazards in the same run.",
	  "Fix those first (their reports name both sites): corrupted or "
	  "released buffers make the latency picture beside the point.", judge_hazards },
	{ "fidelity", "note",
	  "The profile itself missed something: truncated tables, unseen requests, lost events.",
	  "Raise --profile-rings, start the program under uringcheck instead of "
	  "attaching, or give the checker a larger --event-buffer.", judge_fidelity },
};

#define NRULES (sizeof(rules) / sizeof(rules[0]))

/* The rules as the shared finding model knows them (reports/finding.h):
 * named for SARIF ("DoctorPuntRatio"), described by their summary, fixed
 * by their fix, of their own severity. */
static const struct uc_rule *model_rule(const struct doctor_rule *r)
{
	static struct uc_rule model[NRULES];
	static char ids[NRULES][48];
	size_t i = r - rules;

	if (!model[i].name) {
		char *o = ids[i];
		bool up = true;

		o += sprintf(o, "Doctor");
		for (const char *c = r->name; *c && o < ids[i] + 46; c++) {
			if (*c == '-') {
				up = true;
				continue;
			}
			*o++ = up ? (char)toupper((unsigned char)*c) : *c;
			up = false;
		}
		*o = 0;
		model[i] = (struct uc_rule){ .name = r->name, .type = "doctor", .kind = -1,
			.sarif_id = ids[i], .short_desc = r->summary, .full_desc = r->summary,
			.fix = r->fix,
			.severity = strcmp(r->severity, "note") ? UC_SEV_WARNING : UC_SEV_NOTE };
	}
	return &model[i];
}

void doctor_finding(const struct doctor_verdict *v, uint32_t pid, struct uc_finding *out)
{
	const char *line = v->body;

	uc_finding_init(out, model_rule(v->rule), v->pid ? v->pid : pid);
	uc_finding_headline(out, "%s: %s", v->rule->name, v->title);
	uc_finding_title(out, "%s", v->title);
	while (line && *line) {
		size_t n = strcspn(line, "\n");

		uc_finding_text(out, "%.*s\n", (int)n, line);
		line += n + (line[n] == '\n');
	}
	uc_finding_fix(out, "%s", v->rule->fix);
	json_object_object_foreach(v->evidence, k, val)
		uc_finding_evidence(out, k, json_object_get(val));
}

const struct doctor_rule *doctor_rules(size_t *n)
{
	*n = sizeof(rules) / sizeof(rules[0]);
	return rules;
}

/* The row that adds up closed rings past the ones kept one by one
 * (profile_session.h) is no ring and no process: the per-ring and
 * per-process rules do not see it; the fidelity note says it is there. */
void doctor_run(const struct pf_snapshot *s, const struct pf_run_facts *f,
		struct doctor_verdict **v, size_t *n)
{
	struct pf_snapshot judged = *s;
	uint32_t k = 0;

	judged.rings = xcalloc(s->nrings + 1, sizeof(*judged.rings));
	for (uint32_t r = 0; r < s->nrings; r++)
		if (s->rings[r].meta.fd != PF_FD_FOLDED)
			judged.rings[k++] = s->rings[r];
	judged.nrings = k;
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		rules[i].judge(&rules[i], rules[i].judge == judge_fidelity ? s : &judged,
			       f, v, n);
	free(judged.rings);
}

void doctor_free(struct doctor_verdict *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].body);
		json_object_put(v[i].evidence);
	}
	free(v);
}
