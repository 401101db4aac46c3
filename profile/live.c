// SPDX-License-Identifier: GPL-2.0
/*
 * -i SEC: one block per interval while the program runs, in the manner
 * of `iostat -x 1`: per opcode over all rings, rates and the interval's
 * own latency quantiles and paths; -e hides rows as in the report. The
 * final report still covers the whole window.
 */
#include "profile_report.h"

#include "opcode_names.h"

static const char *dur(double ns, char *buf, size_t len)
{
	return pf_dur(ns, buf, len, false);
}

void pf_live_header(FILE *o)
{
	fprintf(o, "%8s %-14s %10s %9s %8s %6s %6s %6s %8s %8s\n", "time", "opcode",
		"req/s", "MiB/s", "err/s", "inl%", "poll%", "punt%", "p50", "p99");
}

void pf_live_rows(FILE *o, const struct pf_snapshot *d, double secs, double t,
		  const struct uc_filter *filt)
{
	int rows = 0, hidden = 0;

	for (unsigned op = 0; op < PF_MAX_OPS; op++) {
		struct pf_op_stats s;
		uint64_t timed;
		char name[16], a[16], b[16];

		pf_op_total(d, -1, op, &s);
		if (!s.completes && !s.submits)
			continue;
		if (filt && !uc_filter_shows(filt, op, s.punted, s.errors)) {
			hidden++;
			continue;
		}
		timed = s.completes - s.unseen;
		fprintf(o, "%7.1fs %-14s %10.0f %9.2f %8.0f %6.1f %6.1f %6.1f %8s %8s\n",
			t, uc_opcode_name(op, name), s.completes / secs,
			s.bytes / secs / 1048576.0, s.errors / secs,
			timed ? 100.0 * (timed - s.polled - s.punted) / timed : 0,
			timed ? 100.0 * s.polled / timed : 0,
			timed ? 100.0 * s.punted / timed : 0,
			dur(pf_op_quantile(&s, 0.5), a, sizeof(a)),
			dur(pf_op_quantile(&s, 0.99), b, sizeof(b)));
		rows++;
	}
	if (hidden)	/* the interval had them: say so, never "(idle)" */
		fprintf(o, "%7.1fs (%d opcode%s hidden by -e/--filter)\n", t, hidden,
			hidden == 1 ? "" : "s");
	else if (!rows)
		fprintf(o, "%7.1fs %-14s\n", t, "(idle)");
	fflush(o);
}
