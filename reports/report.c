// SPDX-License-Identifier: GPL-2.0
#include "report.h"

#include <stdarg.h>

#include "opcode_names.h"
#include <linux/types.h>
#include "uringcheck.h"

static const char *const kind_names[UC_KIND__COUNT] = {
	[UC_KIND_OVERLAP] = "overlap",
};

const char *uc_kind_name(enum uc_kind k)
{
	return k < UC_KIND__COUNT ? kind_names[k] : "unknown";
}

void report_init(struct uc_report *rep, FILE *out, unsigned int max_reports)
{
	*rep = (struct uc_report){ .out = out, .max_reports = max_reports };
}

uint64_t report_total(const struct uc_report *rep)
{
	uint64_t n = 0;

	for (int k = 0; k < UC_KIND__COUNT; k++)
		n += rep->count[k];
	return n;
}

static const char *verb(const struct uc_request_desc *d)
{
	return d->direction == UC_DIR_SINK ? "stores into" : "loads from";
}

static void print_request(FILE *o, const char *role,
			  const struct uc_request_desc *d)
{
	char buf[16];

	fprintf(o, "  %s %s (user_data 0x%llx) on ring fd %d", role,
		uc_opcode_name(d->opcode, buf), (unsigned long long)d->user_data,
		d->ring_fd);
	if (d->sqpoll)
		fprintf(o, ", submitted by the SQPOLL thread %u\n", d->tid);
	else
		fprintf(o, ", thread %u\n", d->tid);
	fprintf(o, "    %s [0x%llx, 0x%llx) (%llu bytes)", verb(d),
		(unsigned long long)d->start, (unsigned long long)d->end,
		(unsigned long long)(d->end - d->start));
	if (d->fixed_buf)
		fprintf(o, ", registered buffer index %u", d->buf_index);
	if (d->vectored)
		fprintf(o, ", one of %u iovecs", d->nr_ranges);
	fputc('\n', o);
	/* Submit stacks slot in here (symbolize/). */
}

void report_overlap(struct uc_report *rep, const struct uc_overlap_finding *f)
{
	const struct uc_request_desc *a = &f->inflight, *b = &f->incoming;
	unsigned long long n = f->end - f->start;
	char ba[16], bb[16];
	FILE *o = rep->out;

	rep->count[UC_KIND_OVERLAP]++;
	if (rep->printed >= rep->max_reports) {
		rep->not_printed++;
		return;
	}
	rep->printed++;

	fprintf(o, "==%u==ERROR: uringcheck: overlap: %s and %s in flight on "
		"the same %llu byte%s\n", f->tgid, uc_opcode_name(b->opcode, bb),
		uc_opcode_name(a->opcode, ba), n, n == 1 ? "" : "s");
	print_request(o, "request", b);
	print_request(o, "overlaps in-flight", a);
	fprintf(o, "    (in flight for %.3f ms when the request above was "
		"submitted)\n", (double)(b->submit_ts - a->submit_ts) / 1e6);
	fprintf(o, "  shared bytes: [0x%llx, 0x%llx)\n",
		(unsigned long long)f->start, (unsigned long long)f->end);
	if (a->direction == UC_DIR_SINK && b->direction == UC_DIR_SINK)
		fprintf(o, "  Both requests store into these bytes; what remains "
			"depends on which one the kernel completes last.\n");
	else
		fprintf(o, "  The %s stores into bytes the %s still loads from; "
			"what it sends depends on timing.\n",
			a->direction == UC_DIR_SINK ? uc_opcode_name(a->opcode, ba)
						    : uc_opcode_name(b->opcode, bb),
			a->direction == UC_DIR_SINK ? uc_opcode_name(b->opcode, bb)
						    : uc_opcode_name(a->opcode, ba));
	fprintf(o, "SUMMARY: uringcheck: overlap %s/%s %llu bytes in pid %u\n\n",
		uc_opcode_name(b->opcode, bb), uc_opcode_name(a->opcode, ba), n,
		f->tgid);
	fflush(o);
}

void report_warning(struct uc_report *rep, uint32_t pid, const char *fmt, ...)
{
	va_list ap;

	fprintf(rep->out, "==%u==WARNING: uringcheck: ", pid);
	va_start(ap, fmt);
	vfprintf(rep->out, fmt, ap);
	va_end(ap);
	fputc('\n', rep->out);
	fflush(rep->out);
}

void report_summary(struct uc_report *rep, uint32_t pid)
{
	uint64_t total = report_total(rep);

	if (!total)
		return;
	fprintf(rep->out, "==%u==uringcheck: %llu finding%s:", pid,
		(unsigned long long)total, total == 1 ? "" : "s");
	for (int k = 0; k < UC_KIND__COUNT; k++)
		if (rep->count[k])
			fprintf(rep->out, " %s %llu", uc_kind_name(k),
				(unsigned long long)rep->count[k]);
	fputc('\n', rep->out);
	if (rep->not_printed)
		fprintf(rep->out, "==%u==uringcheck: %llu of them not shown "
			"(--max-reports=%u)\n", pid,
			(unsigned long long)rep->not_printed, rep->max_reports);
	fflush(rep->out);
}

int report_exit_status(const struct uc_report *rep, int target_status,
		       int error_exitcode)
{
	return report_total(rep) ? error_exitcode : target_status;
}
