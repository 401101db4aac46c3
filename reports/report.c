// SPDX-License-Identifier: GPL-2.0
/*
 * The report state and the one path every finding takes
 * (report_finding): what is counted, what is told, in which formats;
 * then the closing summary and the exit status.
 */
#define _GNU_SOURCE
#include "report.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

void report_init(struct uc_report *rep, FILE *out, unsigned int max_reports,
		 unsigned int fail_on)
{
	*rep = (struct uc_report){ .out = out, .max_reports = max_reports,
				   .fail_on = fail_on, .enabled = uc_kinds_all() };
	dedup_init(&rep->dedup);
	dedup_init(&rep->supp_yes);
	dedup_init(&rep->supp_no);
}

void report_free(struct uc_report *rep)
{
	dedup_free(&rep->dedup);
	dedup_free(&rep->supp_yes);
	dedup_free(&rep->supp_no);
	uc_json_list_free(&rep->json);
	uc_json_list_free(&rep->sarif);
	json_object_put(rep->profile_json);
	rep->profile_json = NULL;
	supp_free(&rep->supp);
	free(rep->ext);
	free(rep->ext_count);
	rep->ext = NULL;
	rep->ext_count = NULL;
	rep->next = 0;
}

/* ---- what is told ------------------------------------------------------------ */

/*
 * Does a suppression cover this finding (rule + its primary stack)? The
 * answer is kept per dedup key (rule and call sites), so that a site
 * found a million times is symbolized and matched once: each match
 * symbolizes the stack, and a test with 19,000 findings at one site kept
 * uringcheck busy for tens of seconds after its target exited.
 */
static bool suppressed(struct uc_report *rep, const struct uc_finding *f)
{
	struct uc_supp_frame fr[UC_SUPP_FRAMES];
	uint64_t sk = report_finding_key(f);
	int n, i;

	if (!rep->supp.n)
		return false;
	if (sk) {
		if (dedup_count(&rep->supp_no, sk))
			return false;
		for (i = 0; (size_t)i < rep->supp.n; i++)
			if (dedup_count(&rep->supp_yes, uc_key_mix(sk, i))) {
				supp_count_hit(&rep->supp, i);
				return true;
			}
	}
	n = report_frames(rep, f->site_stack, fr, UC_SUPP_FRAMES);
	i = supp_match(&rep->supp, f->rule->name, fr, n);
	if (sk)
		dedup_first(i >= 0 ? &rep->supp_yes : &rep->supp_no,
			    i >= 0 ? uc_key_mix(sk, i) : sk, "");
	return i >= 0;
}

/* The first frame of @stack outside liburing, libc and the loader, as
 * "function (file:line)"; false if there is none. */
static bool site_text(struct uc_report *rep, uint64_t stack, char *buf, size_t len)
{
	struct uc_supp_frame fr[UC_SUPP_FRAMES];
	int n = report_frames(rep, stack, fr, UC_SUPP_FRAMES);

	for (int i = 0; i < n; i++) {
		const char *m = fr[i].module ? fr[i].module : "";
		const char *file = fr[i].file;

		if (!fr[i].function || strstr(m, "liburing") || !strncmp(m, "libc.so", 7) ||
		    !strncmp(m, "ld-linux", 8))
			continue;
		if (file) {
			const char *base = strrchr(file, '/');

			snprintf(buf, len, "%s (%s:%d)", fr[i].function, base ? base + 1 : file,
				 fr[i].line);
		} else {
			snprintf(buf, len, "%s (%s)", fr[i].function, m);
		}
		return true;
	}
	return false;
}

enum { TAKE_SKIP, TAKE_RECORD, TAKE_PRINT };

/* Counts @f under its rule. */
static void count(struct uc_report *rep, const struct uc_finding *f)
{
	int slot;

	if (f->rule->kind >= 0) {
		rep->count[f->rule->kind]++;
		return;
	}
	slot = report_ext_slot(rep, f->rule);
	if (slot >= 0)
		rep->ext_count[slot]++;
}

/*
 * TAKE_SKIP: not asked for, suppressed, or a repeat (same key) of a
 * finding already told; TAKE_RECORD: new but over the print limit (it
 * still goes to --json); TAKE_PRINT: print it.
 */
static void need_headline(struct uc_finding *f)
{
	if (!f->headline[0] && f->headline_fn)
		f->headline_fn(f);
}

static int take(struct uc_report *rep, struct uc_finding *f)
{
	int k = f->rule->kind;
	uint64_t dk = report_finding_key(f);

	if (k >= 0 && !(rep->enabled & UC_KIND_BIT(k)))
		return TAKE_SKIP;	/* not asked for (--hazards) */
	if (suppressed(rep, f)) {
		if (k >= 0)
			rep->suppressed[k]++;
		return TAKE_SKIP;
	}
	count(rep, f);
	if (dk) {
		char what[sizeof(f->headline) + 224], site[200];

		/* A repeat costs a count, nothing more: a program can commit
		 * the same hazard millions of times. */
		if (dedup_count(&rep->dedup, dk)) {
			dedup_first(&rep->dedup, dk, NULL);
			rep->repeats++;
			if (rep->finding_hook) {	/* a repeat: its headline only */
				need_headline(f);
				rep->finding_hook(rep->finding_arg, f, f->headline);
			}
			return TAKE_SKIP;
		}
		need_headline(f);
		/* The repeat list tells sites apart by where they are. */
		if (site_text(rep, f->site_stack, site, sizeof(site)))
			snprintf(what, sizeof(what), "%s at %s", f->headline, site);
		else
			snprintf(what, sizeof(what), "%s", f->headline);
		dedup_first(&rep->dedup, dk, what);
	}
	if (rep->printed >= rep->max_reports) {
		rep->not_printed++;
		return TAKE_RECORD;
	}
	rep->printed++;
	return TAKE_PRINT;
}

/* The first of a kind of repeat, to whoever draws findings (--trace):
 * its headline and its first stack, symbolized. */
static void tell_hook(struct uc_report *rep, const struct uc_finding *f)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	if (f->nstacks && f->stacks[0].id && rep->print_stack &&
	    (m = open_memstream(&text, &len))) {
		fprintf(m, "%s\n%s:\n", f->headline, f->stacks[0].role);
		rep->print_stack(rep->stack_ctx, m, f->stacks[0].id, "");
		fclose(m);
	}
	rep->finding_hook(rep->finding_arg, f, text ? text : f->headline);
	free(text);
}

void report_finding(struct uc_report *rep, struct uc_finding *f)
{
	int t;

	if (f->rule->kind < 0)
		report_register_rule(rep, f->rule);
	else	/* a hazard's level is the run's policy, not the builder's */
		f->severity = rep->fail_on & UC_KIND_BIT(f->rule->kind) ?
			      UC_SEV_ERROR : UC_SEV_WARNING;
	t = take(rep, f);
	if (t == TAKE_SKIP || (t == TAKE_RECORD && !rep->want_json && !rep->want_sarif))
		goto out;
	need_headline(f);
	if (f->describe)
		f->describe(f, rep);
	if (rep->finding_hook)
		tell_hook(rep, f);
	if (rep->want_json)
		uc_json_list_add(&rep->json, report_finding_key(f), render_json(rep, f));
	if (rep->want_sarif)
		uc_json_list_add(&rep->sarif, report_finding_key(f), render_sarif(rep, f));
	if (t == TAKE_PRINT)
		render_text(rep, f);
out:
	uc_finding_free(f);
}

void report_withheld(struct uc_report *rep, int k, uint64_t n)
{
	if (k >= 0 && k < uc_kinds_count() && (rep->enabled & UC_KIND_BIT(k)))
		rep->withheld[k] += n;
}

uint64_t report_total(const struct uc_report *rep)
{
	uint64_t n = 0;

	for (int k = 0; k < uc_kinds_count(); k++)
		n += rep->count[k];
	return n;
}

/* ---- the end of the run -------------------------------------------------------- */

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

/* "==PID==uringcheck: 3 doctor findings: punt-ratio 2 sq-full 1": one
 * line per family of other rules, at its first rule; the number of them
 * in all. */
static uint64_t summary_families(const struct uc_report *rep, uint32_t pid)
{
	uint64_t all = 0;

	for (size_t i = 0; i < rep->next; i++) {
		const char *fam = report_rule_type(rep->ext[i]);
		uint64_t n = 0;
		size_t j;

		for (j = 0; j < i && strcmp(report_rule_type(rep->ext[j]), fam); j++)
			;
		if (j < i)
			continue;	/* told with an earlier rule */
		for (j = i; j < rep->next; j++)
			if (!strcmp(report_rule_type(rep->ext[j]), fam))
				n += rep->ext_count[j];
		if (!n)
			continue;
		all += n;
		fprintf(rep->out, "==%u==uringcheck: %llu %s finding%s:", pid,
			(unsigned long long)n, fam, n == 1 ? "" : "s");
		for (j = i; j < rep->next; j++)
			if (rep->ext_count[j] && !strcmp(report_rule_type(rep->ext[j]), fam))
				fprintf(rep->out, " %s %llu", rep->ext[j]->name,
					(unsigned long long)rep->ext_count[j]);
		fputc('\n', rep->out);
	}
	return all;
}

void report_summary(struct uc_report *rep, uint32_t pid)
{
	uint64_t total = report_total(rep), nsupp = 0, nwithheld = 0, nother;

	for (int k = 0; k < uc_kinds_count(); k++)
		nsupp += rep->suppressed[k];
	if (nsupp) {
		fprintf(rep->out, "==%u==uringcheck: %llu finding%s suppressed\n", pid,
			(unsigned long long)nsupp, nsupp == 1 ? "" : "s");
		supp_print_used(&rep->supp, rep->out, pid);
	}
	for (int k = 0; k < uc_kinds_count(); k++)
		nwithheld += rep->withheld[k];
	if (nwithheld) {
		fprintf(rep->out, "==%u==uringcheck: %llu finding%s withheld:", pid,
			(unsigned long long)nwithheld, nwithheld == 1 ? "" : "s");
		for (int k = 0; k < uc_kinds_count(); k++)
			if (rep->withheld[k])
				fprintf(rep->out, " %s %llu", uc_kind_name(k),
					(unsigned long long)rep->withheld[k]);
		fprintf(rep->out, "\n==%u==uringcheck: (events were lost, and the "
			"kernel side could not confirm that their requests were still "
			"in flight: not errors; docs/lost-events.md)\n", pid);
	}
	if (total) {
		fprintf(rep->out, "==%u==uringcheck: %llu finding%s:", pid,
			(unsigned long long)total, total == 1 ? "" : "s");
		for (int k = 0; k < uc_kinds_count(); k++)
			if (rep->count[k])
				fprintf(rep->out, " %s %llu", uc_kind_name(k),
					(unsigned long long)rep->count[k]);
		fputc('\n', rep->out);
	}
	nother = summary_families(rep, pid);
	if (!total && !nother)
		return;
	if (rep->repeats) {
		fprintf(rep->out, "==%u==uringcheck: %llu of them repeat a finding "
			"told above (same kind and call sites):\n", pid, (unsigned long long)rep->repeats);
		dedup_print_repeats(&rep->dedup, rep->out);
	}
	if (rep->not_printed)
		fprintf(rep->out, "==%u==uringcheck: %llu of them not shown "
			"(--max-reports=%u)\n", pid,
			(unsigned long long)rep->not_printed, rep->max_reports);
	fflush(rep->out);
}

/* Only hazard kinds count: other rules advise, they never fail a run. */
int report_exit_status(const struct uc_report *rep, int target_status,
		       int error_exitcode)
{
	for (int k = 0; k < uc_kinds_count(); k++)
		if (rep->count[k] && (rep->fail_on & UC_KIND_BIT(k)))
			return error_exitcode;
	return target_status;
}
