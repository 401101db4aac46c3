// SPDX-License-Identifier: GPL-2.0
/*
 * The profile's tables in the exposition formats Prometheus scrapes:
 * OpenMetrics 1.0 (counter families named without _total, "# EOF" at the
 * end) when the scraper asks for it, else the classic text format 0.0.4
 * (what `promtool check metrics` reads). One writer, two spellings.
 *
 * Labels: pid, ring (the fd, or the ring's address when it was created
 * before the profile; "closed" with an empty pid for the row that adds up
 * closed rings past the ones kept one by one), opcode. Latency is a histogram in seconds with the
 * kernel side's log2 buckets as its bounds.
 */
#define _GNU_SOURCE
#include "profile_report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "opcode_names.h"

struct mw {
	FILE *f;
	bool om;			/* OpenMetrics */
};

/* # HELP / # TYPE of a family; counters' samples end in _total. */
static void family(struct mw *w, const char *name, const char *type, const char *unit,
		   const char *help)
{
	bool counter = type[0] == 'c';

	if (w->om) {
		fprintf(w->f, "# TYPE %s %s\n", name, type);
		if (unit)
			fprintf(w->f, "# UNIT %s %s\n", name, unit);
		fprintf(w->f, "# HELP %s %s\n", name, help);
	} else {
		fprintf(w->f, "# HELP %s%s %s\n", name, counter ? "_total" : "", help);
		fprintf(w->f, "# TYPE %s%s %s\n", name, counter ? "_total" : "", type);
	}
}

static void ring_label(const struct pf_ring_view *rv, char *buf, size_t len)
{
	if (rv->meta.fd == PF_FD_FOLDED)
		snprintf(buf, len, "pid=\"\",ring=\"closed\"");
	else if (rv->meta.fd >= 0)
		snprintf(buf, len, "pid=\"%u\",ring=\"%d\"", rv->meta.tgid, rv->meta.fd);
	else
		snprintf(buf, len, "pid=\"%u\",ring=\"0x%llx\"", rv->meta.tgid,
			 (unsigned long long)rv->meta.ctx);
}

/* A per-opcode counter: one sample per ring and opcode in use. */
static void op_counter(struct mw *w, const struct pf_snapshot *s, const char *name,
		       const char *unit, const char *help, size_t field)
{
	family(w, name, "counter", unit, help);
	for (uint32_t r = 0; r < s->nrings; r++) {
		const struct pf_ring_view *rv = &s->rings[r];
		char rl[96], on[16];

		ring_label(rv, rl, sizeof(rl));
		for (unsigned op = 0; op < PF_MAX_OPS; op++) {
			const struct pf_op_stats *t = &rv->ops[op];

			if (!t->submits && !t->completes)
				continue;
			fprintf(w->f, "%s_total{%s,opcode=\"%s\"} %llu\n", name, rl,
				uc_opcode_name(op, on),
				(unsigned long long)*(const __u64 *)((const char *)t + field));
		}
	}
}

static void ring_counter(struct mw *w, const struct pf_snapshot *s, const char *name,
			 const char *help, size_t field)
{
	family(w, name, "counter", NULL, help);
	for (uint32_t r = 0; r < s->nrings; r++) {
		char rl[96];

		ring_label(&s->rings[r], rl, sizeof(rl));
		fprintf(w->f, "%s_total{%s} %llu\n", name, rl, (unsigned long long)
			*(const __u64 *)((const char *)&s->rings[r].st + field));
	}
}

static void paths(struct mw *w, const struct pf_snapshot *s)
{
	family(w, "uringcheck_request_paths", "counter", NULL,
	       "Requests ended, by the path they took: inline, poll (armed a poll "
	       "first), punt (ran in io-wq).");
	for (uint32_t r = 0; r < s->nrings; r++) {
		const struct pf_ring_view *rv = &s->rings[r];
		char rl[96], on[16];

		ring_label(rv, rl, sizeof(rl));
		for (unsigned op = 0; op < PF_MAX_OPS; op++) {
			const struct pf_op_stats *t = &rv->ops[op];
			uint64_t timed = t->completes - t->unseen;

			if (!t->completes)
				continue;
			pf_opname(op, on);
			fprintf(w->f, "uringcheck_request_paths_total{%s,opcode=\"%s\",path=\"inline\"} %llu\n",
				rl, on, (unsigned long long)(timed - t->polled - t->punted));
			fprintf(w->f, "uringcheck_request_paths_total{%s,opcode=\"%s\",path=\"poll\"} %llu\n",
				rl, on, (unsigned long long)t->polled);
			fprintf(w->f, "uringcheck_request_paths_total{%s,opcode=\"%s\",path=\"punt\"} %llu\n",
				rl, on, (unsigned long long)t->punted);
		}
	}
}

static void latency(struct mw *w, const struct pf_snapshot *s)
{
	family(w, "uringcheck_request_latency_seconds", "histogram", "seconds",
	       "Time from submission to completion of timed requests.");
	for (uint32_t r = 0; r < s->nrings; r++) {
		const struct pf_ring_view *rv = &s->rings[r];
		char rl[96], on[16];

		ring_label(rv, rl, sizeof(rl));
		for (unsigned op = 0; op < PF_MAX_OPS; op++) {
			const struct pf_op_stats *t = &rv->ops[op];
			uint64_t cum = 0;

			if (!t->completes)
				continue;
			pf_opname(op, on);
			/* bucket b holds [2^b, 2^(b+1)) ns: its upper bound */
			for (int b = 0; b < PF_LAT_BUCKETS - 1; b++) {
				cum += t->lat_hist[b];
				fprintf(w->f, "uringcheck_request_latency_seconds_bucket{%s,"
					"opcode=\"%s\",le=\"%.9g\"} %llu\n", rl, on,
					(double)(2ull << b) / 1e9, (unsigned long long)cum);
			}
			cum += t->lat_hist[PF_LAT_BUCKETS - 1];
			fprintf(w->f, "uringcheck_request_latency_seconds_bucket{%s,"
				"opcode=\"%s\",le=\"+Inf\"} %llu\n", rl, on,
				(unsigned long long)cum);
			fprintf(w->f, "uringcheck_request_latency_seconds_count{%s,"
				"opcode=\"%s\"} %llu\n", rl, on, (unsigned long long)cum);
			fprintf(w->f, "uringcheck_request_latency_seconds_sum{%s,"
				"opcode=\"%s\"} %.9f\n", rl, on, t->lat_sum_ns / 1e9);
		}
	}
}

static void processes(struct mw *w, const struct pf_snapshot *s,
		      const struct pf_run_facts *f)
{
	family(w, "uringcheck_sqpoll_cpu_seconds", "counter", "seconds",
	       "Time the process's SQPOLL threads spent on a CPU.");
	for (size_t i = 0; i < s->nprocs; i++)
		fprintf(w->f, "uringcheck_sqpoll_cpu_seconds_total{pid=\"%u\"} %.9f\n",
			s->procs[i].tgid, s->procs[i].p.sqpoll_oncpu_ns / 1e9);
	family(w, "uringcheck_iowq_cpu_seconds", "counter", "seconds",
	       "Time the process's io-wq workers spent on a CPU.");
	for (size_t i = 0; i < s->nprocs; i++)
		fprintf(w->f, "uringcheck_iowq_cpu_seconds_total{pid=\"%u\"} %.9f\n",
			s->procs[i].tgid, s->procs[i].p.worker_oncpu_ns / 1e9);
	family(w, "uringcheck_iowq_workers_seen", "gauge", NULL,
	       "Distinct io-wq workers of the process seen running so far.");
	for (size_t i = 0; i < s->nprocs; i++)
		fprintf(w->f, "uringcheck_iowq_workers_seen{pid=\"%u\"} %u\n",
			s->procs[i].tgid, s->procs[i].p.workers);
	family(w, "uringcheck_iowq_workers_peak", "gauge", NULL,
	       "Most io-wq workers of the process alive at once (sampled each second).");
	for (size_t i = 0; i < f->npeaks; i++)
		fprintf(w->f, "uringcheck_iowq_workers_peak{pid=\"%u\"} %u\n",
			f->peaks[i].tgid, f->peaks[i].workers);
}

static void fidelity(struct mw *w, const struct pf_snapshot *s)
{
	static const char *const names[PF_STAT__COUNT] = {
		[PF_STAT_RINGS_UNPROFILED] = "rings_unprofiled",
		[PF_STAT_REQS_UNPROFILED] = "requests_unprofiled",
		[PF_STAT_THREADS_FULL] = "threads_not_recorded",
		[PF_STAT_PROCS_FULL] = "processes_not_followed",
		[PF_STAT_ERRNO_FULL] = "errors_not_by_errno",
	};

	family(w, "uringcheck_profile_missed", "counter", NULL,
	       "What the profile could not record (its tables were full).");
	for (int i = 0; i < PF_STAT__COUNT; i++)
		fprintf(w->f, "uringcheck_profile_missed_total{what=\"%s\"} %llu\n",
			names[i], (unsigned long long)s->stats[i]);
}

static char *metrics(const struct pf_snapshot *s, const struct pf_run_facts *f, bool om)
{
	char *buf = NULL;
	size_t len = 0;
	struct mw w = { .f = open_memstream(&buf, &len), .om = om };

	if (!w.f)
		return NULL;
	op_counter(&w, s, "uringcheck_requests_submitted", NULL,
		   "io_uring requests submitted.", offsetof(struct pf_op_stats, submits));
	op_counter(&w, s, "uringcheck_requests_completed", NULL,
		   "io_uring requests that ended with a CQE.",
		   offsetof(struct pf_op_stats, completes));
	op_counter(&w, s, "uringcheck_request_errors", NULL,
		   "Requests that ended with a negative result.",
		   offsetof(struct pf_op_stats, errors));
	op_counter(&w, s, "uringcheck_request_bytes", "bytes",
		   "Bytes moved by data requests (their positive results).",
		   offsetof(struct pf_op_stats, bytes));
	op_counter(&w, s, "uringcheck_short_writes", NULL,
		   "WRITE, WRITE_FIXED and SEND requests that moved fewer bytes than asked.",
		   offsetof(struct pf_op_stats, short_writes));
	paths(&w, s);
	latency(&w, s);
	ring_counter(&w, s, "uringcheck_enter_calls", "io_uring_enter calls on the ring.",
		     offsetof(struct pf_ring_stats, enters));
	ring_counter(&w, s, "uringcheck_enter_sqes",
		     "SQEs submitted by io_uring_enter calls on the ring.",
		     offsetof(struct pf_ring_stats, enter_sqes));
	ring_counter(&w, s, "uringcheck_sqpoll_wakeups",
		     "io_uring_enter calls that had to wake the SQPOLL thread.",
		     offsetof(struct pf_ring_stats, sq_wakeups));
	ring_counter(&w, s, "uringcheck_cq_overflows",
		     "CQEs sent to the overflow list (the CQ ring was full).",
		     offsetof(struct pf_ring_stats, cq_overflows));
	ring_counter(&w, s, "uringcheck_register_calls", "io_uring_register calls on the ring.",
		     offsetof(struct pf_ring_stats, register_calls));
	processes(&w, s, f);
	fidelity(&w, s);
	if (om)
		fputs("# EOF\n", w.f);
	fclose(w.f);
	return buf;
}

char *pf_metrics_text(const struct pf_snapshot *s, const struct pf_run_facts *f)
{
	return metrics(s, f, false);
}

char *pf_openmetrics_text(const struct pf_snapshot *s, const struct pf_run_facts *f)
{
	return metrics(s, f, true);
}
