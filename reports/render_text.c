// SPDX-License-Identifier: GPL-2.0
/*
 * A finding as text, in the voice of the sanitizers:
 *
 *   ==PID==ERROR: uringcheck: KIND: TITLE
 *   BODY (with the stacks it shows)
 *     fix: FIX                        (when the finding has its own)
 *   SUMMARY: uringcheck: HEADLINE
 *
 * Rules outside the hazard kinds name their family before their name
 * ("doctor: punt-ratio"), so that no one mistakes advice for a hazard
 * and a grep for "uringcheck: overlap:" matches hazards only.
 */
#include "render.h"

static const char *level_word(enum uc_severity s)
{
	return s == UC_SEV_ERROR ? "ERROR" : s == UC_SEV_WARNING ? "WARNING" : "NOTE";
}

/* A confirmed finding whose window saw lost events says how it stands. */
static void print_spans_loss(FILE *o, bool spans_loss)
{
	if (spans_loss)
		fprintf(o, "  Events were lost while this was in flight; the kernel "
			"side's records confirm it\n  (docs/lost-events.md).\n");
}

/* --gen-suppressions: a block matching this finding, after its report.
 * Only for hazard kinds: a suppressions file names those alone. */
static void gen_suppression(struct uc_report *rep, const struct uc_finding *f)
{
	struct uc_supp_frame fr[UC_SUPP_FRAMES];
	int n;

	if (!rep->gen_suppressions || f->rule->kind < 0)
		return;
	n = report_frames(rep, f->site_stack, fr, 8);
	supp_print_entry(rep->out, f->rule->name, fr, n);
	fputc('\n', rep->out);
}

void render_text(struct uc_report *rep, const struct uc_finding *f)
{
	FILE *o = rep->out;

	fprintf(o, "==%u==%s: uringcheck: ", f->pid, level_word(f->severity));
	if (f->rule->kind < 0)
		fprintf(o, "%s: ", report_rule_type(f->rule));
	fprintf(o, "%s: %s\n", f->rule->name, f->title ? f->title : "");
	for (int i = 0; i < f->nbody; i++) {
		const struct uc_body_part *p = &f->body[i];

		if (p->stack < 0) {
			fputs(p->text ? p->text : "", o);
		} else if (rep->print_stack && p->stack < f->nstacks) {
			fprintf(o, "    %s\n", p->text ? p->text : "");
			rep->print_stack(rep->stack_ctx, o, f->stacks[p->stack].id,
					 f->stacks[p->stack].no_stack);
		}
	}
	print_spans_loss(o, f->spans_loss);
	if (f->fix)
		fprintf(o, "  fix: %s\n", f->fix);
	if (!f->brief) {
		fprintf(o, "SUMMARY: uringcheck: %s\n\n", f->headline);
		gen_suppression(rep, f);
	}
	fflush(o);
}
