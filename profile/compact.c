// SPDX-License-Identifier: GPL-2.0
/*
 * -c: the profile as one table, as strace -c tells system calls: per
 * opcode over every ring, its share of the summed request latency, that
 * sum, the average and p99, requests and errors; busiest first, a total
 * last. The sums and averages are estimates where requests were sampled
 * (--profile-sample): each timed request stands for the ones it
 * represents, as in the full report.
 */
#define _GNU_SOURCE
#include "profile_report.h"

#include <stdlib.h>

struct crow {
	unsigned op;
	struct pf_op_stats t;
	double est;			/* requests the histogram stands for */
};

static int by_time(const void *x, const void *y)
{
	const struct crow *a = x, *b = y;

	if (a->t.lat_sum_ns != b->t.lat_sum_ns)
		return a->t.lat_sum_ns < b->t.lat_sum_ns ? 1 : -1;
	return (int)a->op - (int)b->op;
}

void pf_compact_text(FILE *o, const struct pf_snapshot *s, const struct pf_run_facts *f,
		     const struct uc_filter *filt, const char *what)
{
	struct crow rows[PF_MAX_OPS];
	uint64_t sum = 0, calls = 0, errors = 0;
	size_t n = 0, hidden = 0;
	char name[16], a[16], b[16];

	fprintf(o, "uringcheck profile: %s, %.3f s, %u ring%s\n", what, f->window_s,
		s->nrings, s->nrings == 1 ? "" : "s");
	for (unsigned op = 0; op < PF_MAX_OPS; op++) {
		struct crow *r = &rows[n];

		pf_op_total(s, -1, op, &r->t);
		if (!r->t.submits && !r->t.completes)
			continue;
		if (filt && !uc_filter_shows(filt, op, r->t.punted, r->t.errors)) {
			hidden++;
			continue;
		}
		r->op = op;
		r->est = 0;
		for (int k = 0; k < PF_LAT_BUCKETS; k++)
			r->est += (double)r->t.lat_hist[k];
		sum += r->t.lat_sum_ns;
		calls += r->t.completes;
		errors += r->t.errors;
		n++;
	}
	qsort(rows, n, sizeof(rows[0]), by_time);
	fprintf(o, "%6s %11s %9s %9s %10s %8s %s\n", "% time", "seconds", "avg", "p99",
		"requests", "errors", "opcode");
	fprintf(o, "------ ----------- --------- --------- ---------- -------- ----------------\n");
	for (size_t i = 0; i < n; i++) {
		const struct crow *r = &rows[i];
		char errs[24] = "";

		if (r->t.errors)	/* blank when none, as strace's column */
			snprintf(errs, sizeof(errs), "%llu", (unsigned long long)r->t.errors);
		fprintf(o, "%6.2f %11.6f %9s %9s %10llu %8s %s\n",
			sum ? 100.0 * r->t.lat_sum_ns / sum : 0, r->t.lat_sum_ns / 1e9,
			pf_dur(r->est ? r->t.lat_sum_ns / r->est : 0, a, sizeof(a), false),
			pf_dur(pf_op_quantile(&r->t, 0.99), b, sizeof(b), false),
			(unsigned long long)r->t.completes, errs, pf_opname(r->op, name));
	}
	fprintf(o, "------ ----------- --------- --------- ---------- -------- ----------------\n");
	fprintf(o, "%6s %11.6f %9s %9s %10llu %8llu total\n", sum ? "100.00" : "0.00",
		sum / 1e9, "", "", (unsigned long long)calls, (unsigned long long)errors);
	if (hidden)
		fprintf(o, "(%zu opcode%s hidden by -e/--filter)\n", hidden, hidden == 1 ? "" : "s");
	if (!s->nrings)
		fprintf(o, "no io_uring requests seen\n");
}
