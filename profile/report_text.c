// SPDX-License-Identifier: GPL-2.0
/*
 * The profile report for people: per ring a table of opcodes (count,
 * errors, bytes, path shares, latency quantiles), the ring's system-call
 * and completion figures, errors by errno and registration; then each
 * process, the per-second volume, the profile's own fidelity; then the
 * line that opens the doctor's verdicts. -e/--filter hides rows (and
 * says how many).
 */
#define _GNU_SOURCE
#include "profile_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opcode_names.h"
#include "xalloc.h"

static const char *dur(double ns, char *buf, size_t len)
{
	return pf_dur(ns, buf, len, false);
}

static const char *bytes(uint64_t b, char *buf, size_t len)
{
	if (!b)
		snprintf(buf, len, "-");
	else if (b < 10240)
		snprintf(buf, len, "%lluB", (unsigned long long)b);
	else if (b < 10ull << 20)
		snprintf(buf, len, "%.1fK", b / 1024.0);
	else if (b < 10ull << 30)
		snprintf(buf, len, "%.1fM", b / 1048576.0);
	else
		snprintf(buf, len, "%.1fG", b / 1073741824.0);
	return buf;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * a / b : 0;
}

/* uapi IORING_SETUP_* names, for the ring line */
static void setup_flags(uint32_t f, char *buf, size_t len)
{
	static const char *const names[] = { "IOPOLL", "SQPOLL", "SQ_AFF", "CQSIZE",
		"CLAMP", "ATTACH_WQ", "R_DISABLED", "SUBMIT_ALL", "COOP_TASKRUN",
		"TASKRUN_FLAG", "SQE128", "CQE32", "SINGLE_ISSUER", "DEFER_TASKRUN",
		"NO_MMAP", "REGISTERED_FD_ONLY", "NO_SQARRAY", "HYBRID_IOPOLL" };
	size_t n = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (f & (1u << i))
			n += snprintf(buf + n, len > n ? len - n : 0, "%s%s", n ? "|" : "",
				      names[i]);
	if (!n)
		snprintf(buf, len, "none");
}

/* uapi IORING_REGISTER_* names, for registration lines */
static const char *reg_name(unsigned op)
{
	static const char *const names[] = { "BUFFERS", "UNREGISTER_BUFFERS", "FILES",
		"UNREGISTER_FILES", "EVENTFD", "UNREGISTER_EVENTFD", "FILES_UPDATE",
		"EVENTFD_ASYNC", "PROBE", "PERSONALITY", "UNREGISTER_PERSONALITY",
		"RESTRICTIONS", "ENABLE_RINGS", "FILES2", "FILES_UPDATE2", "BUFFERS2",
		"BUFFERS_UPDATE", "IOWQ_AFF", "UNREGISTER_IOWQ_AFF", "IOWQ_MAX_WORKERS",
		"RING_FDS", "UNREGISTER_RING_FDS", "PBUF_RING", "UNREGISTER_PBUF_RING",
		"SYNC_CANCEL", "FILE_ALLOC_RANGE", "PBUF_STATUS", "NAPI",
		"UNREGISTER_NAPI", "CLOCK", "CLONE_BUFFERS", "SEND_MSG_RING",
		"ZCRX_IFQ", "RESIZE_RINGS", "MEM_REGION", "QUERY" };

	return op < sizeof(names) / sizeof(names[0]) ? names[op] : "other";
}

/* Whether -e shows @op's row of ring @rv (no filter: every row). */
static bool shown(const struct uc_filter *filt, const struct pf_ring_view *rv, unsigned op)
{
	return !filt || uc_filter_shows(filt, op, rv->ops[op].punted, rv->ops[op].errors);
}

/* Returns how many of the ring's opcode rows -e hid. */
static size_t op_table(FILE *o, const struct pf_ring_view *rv, bool paths,
		       const struct uc_filter *filt)
{
	size_t hidden = 0;

	fprintf(o, "  %-16s %9s %7s %8s %7s %7s %7s %8s %8s %8s %8s\n", "opcode",
		"requests", "errors", "bytes", "inline", "poll", "punt", "p50", "p90",
		"p99", "max");
	for (unsigned op = 0; op < PF_MAX_OPS; op++) {
		const struct pf_op_stats *t = &rv->ops[op];
		uint64_t ends = t->completes, timed = ends - t->unseen;
		char name[16], by[16], a[16], b[16], c[16], d[16];

		if (!t->submits && !t->completes)
			continue;
		if (!shown(filt, rv, op)) {
			hidden++;
			continue;
		}
		pf_opname(op, name);
		fprintf(o, "  %-16s %9llu %7llu %8s", name, (unsigned long long)ends,
			(unsigned long long)t->errors, bytes(t->bytes, by, sizeof(by)));
		if (paths)
			fprintf(o, " %6.1f%% %6.1f%% %6.1f%%",
				pct(timed - t->polled - t->punted, timed),
				pct(t->polled, timed), pct(t->punted, timed));
		else
			fprintf(o, " %7s %7s %7s", "?", "?", "?");
		fprintf(o, " %8s %8s %8s %8s",
			dur(pf_op_quantile(t, 0.5), a, sizeof(a)),
			dur(pf_op_quantile(t, 0.9), b, sizeof(b)),
			dur(pf_op_quantile(t, 0.99), c, sizeof(c)),
			dur((double)t->lat_max_ns, d, sizeof(d)));
		if (t->submits > ends)
			fprintf(o, "  (%llu in flight)", (unsigned long long)(t->submits - ends));
		fputc('\n', o);
		if (t->forced || t->short_writes || t->unseen || t->silent) {
			fprintf(o, "  %-16s", "");
			if (t->forced)
				fprintf(o, " %llu punts flagged async at submission;",
					(unsigned long long)t->forced);
			if (t->short_writes)
				fprintf(o, " %llu short writes;", (unsigned long long)t->short_writes);
			if (t->unseen)
				fprintf(o, " %llu submitted before the profile began;",
					(unsigned long long)t->unseen);
			if (t->silent)
				fprintf(o, " %llu ended without a CQE (untimed);",
					(unsigned long long)t->silent);
			fputc('\n', o);
		}
	}
	return hidden;
}

static void ring_lines(FILE *o, const struct pf_snapshot *s, const struct pf_ring_view *rv,
		       const struct uc_filter *filt)
{
	const struct pf_ring_stats *st = &rv->st;
	char a[16];

	fprintf(o, "  io_uring_enter: %llu calls", (unsigned long long)st->enters);
	if (st->enters_submitting)
		fprintf(o, ", %llu submitting %llu SQEs (%.1f per call)",
			(unsigned long long)st->enters_submitting,
			(unsigned long long)st->enter_sqes,
			(double)st->enter_sqes / st->enters_submitting);
	if (st->enters_waiting)
		fprintf(o, ", %llu waiting", (unsigned long long)st->enters_waiting);
	if (st->sq_wakeups)
		fprintf(o, ", %llu SQPOLL wake-ups", (unsigned long long)st->sq_wakeups);
	fputc('\n', o);
	fprintf(o, "  CQEs: %llu overflowed, %llu of no request's end (multishot, "
		"msg_ring)", (unsigned long long)st->cq_overflows,
		(unsigned long long)st->aux_cqes);
	if (st->cqring_waits) {
		double m = pf_hist_quantile(st->wait_hist, PF_WAIT_BUCKETS, 0.5);

		fprintf(o, "; %llu waits for completions (min_events p50 %.0f)",
			(unsigned long long)st->cqring_waits, m < 1 ? 1 : m);
	}
	fputc('\n', o);
	for (size_t e = 0; e < s->nerrs; e++) {
		const struct pf_errno_view *ev = &s->errs[e];
		char name[16];

		if (ev->ring != rv->slot || (ev->opcode < PF_MAX_OPS && !shown(filt, rv, ev->opcode)))
			continue;
		fprintf(o, "  errors: %s -%s x %llu\n", uc_opcode_name(ev->opcode, name),
			strerrorname_np(ev->err) ? strerrorname_np(ev->err) : "?",
			(unsigned long long)ev->n);
	}
	for (unsigned op = 0; op < PF_REG_OPS; op++) {
		if (!st->reg_count[op])
			continue;
		fprintf(o, "  register %s: %llu call%s, %s on average\n", reg_name(op),
			(unsigned long long)st->reg_count[op], st->reg_count[op] == 1 ? "" : "s",
			dur((double)st->reg_ns[op] / st->reg_count[op], a, sizeof(a)));
	}
}

static void volume(FILE *o, const struct pf_run_facts *f)
{
	uint64_t sum = 0, peak = 0, csum = 0, cpeak = 0;
	size_t at = 0;

	if (!f->nsecs)
		return;
	for (size_t i = 0; i < f->nsecs; i++) {
		sum += f->submits_per_s[i];
		csum += f->completes_per_s[i];
		if (f->submits_per_s[i] > peak) {
			peak = f->submits_per_s[i];
			at = i;
		}
		if (f->completes_per_s[i] > cpeak)
			cpeak = f->completes_per_s[i];
	}
	if (f->window_s < 1) {
		fprintf(o, "per second: a run shorter than a second (%llu submits, "
			"%llu completions)\n", (unsigned long long)sum,
			(unsigned long long)csum);
		return;
	}
	fprintf(o, "per second: submits %.0f mean, %llu peak (second %zu); "
		"completions %.0f mean, %llu peak (--json has each second)\n",
		sum / f->window_s, (unsigned long long)peak, at + 1,
		csum / f->window_s, (unsigned long long)cpeak);
}

static void processes(FILE *o, const struct pf_snapshot *s, const struct pf_run_facts *f)
{
	uint32_t *seen = xcalloc(s->nrings + 1, sizeof(*seen));	/* one per process at most */
	size_t nseen = 0;

	for (uint32_t r = 0; r < s->nrings; r++) {
		uint32_t tgid = s->rings[r].meta.tgid;
		uint64_t subs = 0, ends = 0, enters = 0;

		if (s->rings[r].meta.fd == PF_FD_FOLDED)
			continue;	/* no process's */
		unsigned rings = 0;
		const struct pf_proc *p = NULL;
		size_t i;

		for (i = 0; i < nseen && seen[i] != tgid; i++)
			;
		if (i < nseen)
			continue;
		seen[nseen++] = tgid;
		for (uint32_t q = 0; q < s->nrings; q++) {
			const struct pf_ring_view *rv = &s->rings[q];

			if (rv->meta.tgid != tgid)
				continue;
			rings++;
			enters += rv->st.enters;
			for (unsigned op = 0; op < PF_MAX_OPS; op++) {
				subs += rv->ops[op].submits;
				ends += rv->ops[op].completes;
			}
		}
		for (size_t k = 0; k < s->nprocs; k++)
			if (s->procs[k].tgid == tgid)
				p = &s->procs[k].p;
		fprintf(o, "process %u (%.16s): %u ring%s, %llu submits, %llu completions, "
			"%llu io_uring_enter calls", tgid, s->rings[r].meta.comm, rings,
			rings == 1 ? "" : "s", (unsigned long long)subs,
			(unsigned long long)ends, (unsigned long long)enters);
		if (p && p->workers) {
			uint32_t peak = 0;

			for (size_t k = 0; k < f->npeaks; k++)
				if (f->peaks[k].tgid == tgid)
					peak = f->peaks[k].workers;
			fprintf(o, "; io-wq: %u workers (%u at once), %.1f ms on CPU", p->workers,
				peak, p->worker_oncpu_ns / 1e6);
		}
		if (p && p->sqpoll_threads)
			fprintf(o, "; SQPOLL: %.2f s on CPU (%.0f%% of the window)",
				p->sqpoll_oncpu_ns / 1e9,
				f->window_s > 0 ? 100 * p->sqpoll_oncpu_ns / 1e9 / f->window_s : 0);
		fputc('\n', o);
	}
	free(seen);
}

void pf_report_text(FILE *o, const struct pf_snapshot *s, const struct pf_run_facts *f,
		    const struct uc_filter *filt, const char *what)
{
	char flags[160];
	size_t hidden = 0;

	fprintf(o, "uringcheck profile: %s, %.3f s, %u ring%s\n", what, f->window_s,
		s->nrings, s->nrings == 1 ? "" : "s");
	for (uint32_t r = 0; r < s->nrings; r++) {
		const struct pf_ring_view *rv = &s->rings[r];

		setup_flags(rv->meta.setup_flags, flags, sizeof(flags));
		fprintf(o, "\nring ");
		if (rv->meta.fd == PF_FD_FOLDED) {
			fprintf(o, "%llu more closed rings, added up in one row (past the "
				"first %d)\n", (unsigned long long)s->folded_rings, PF_RETIRED_MAX);
			hidden += op_table(o, rv, f->paths, filt);
			ring_lines(o, s, rv, filt);
			continue;
		}
		if (rv->meta.fd >= 0)
			fprintf(o, "fd %d", rv->meta.fd);
		else
			fprintf(o, "0x%llx (created before the profile)",
				(unsigned long long)rv->meta.ctx);
		fprintf(o, " of process %u (%.16s)", rv->meta.tgid, rv->meta.comm);
		if (rv->meta.sq_entries)
			fprintf(o, ": %u SQ / %u CQ entries, setup flags %s",
				rv->meta.sq_entries, rv->meta.cq_entries, flags);
		fputc('\n', o);
		hidden += op_table(o, rv, f->paths, filt);
		ring_lines(o, s, rv, filt);
	}
	if (!s->nrings)
		fprintf(o, "no io_uring requests seen\n");
	if (hidden)	/* never silent: the rows are there, not shown */
		fprintf(o, "\n%zu opcode row%s hidden by -e/--filter\n", hidden,
			hidden == 1 ? "" : "s");
	fputc('\n', o);
	processes(o, s, f);
	volume(o, f);
	if (!f->paths)
		fprintf(o, "paths: not attributed on this kernel (io_uring_poll_arm and "
			"io_uring_queue_async_work take the request since 5.19)\n");

}

void pf_report_doctor(FILE *o, size_t nv)
{
	/* the verdicts follow, as findings (reports/finding.h) */
	fprintf(o, "doctor: %zu finding%s%s\n", nv, nv == 1 ? "" : "s", nv ? ":" : "");
	fflush(o);
}
