// SPDX-License-Identifier: GPL-2.0
/*
 * The rules a report knows, as the renderers and report.c both ask of
 * them: the hazard kinds (by registration) and the other rules (the
 * doctor's, registered as they first report); each rule's index, key and
 * family; a stack's symbolized frames. Apart from report.c so that the
 * renderers, which report.c calls, do not call back into it.
 */
#include "render.h"

#include <stdlib.h>
#include <string.h>

/* ---- rules outside the hazard kinds --------------------------------------- */

/* @r's slot among the rules outside the hazard kinds, -1 if it has none (yet). */
int report_ext_slot(const struct uc_report *rep, const struct uc_rule *r)
{
	for (size_t i = 0; i < rep->next; i++)
		if (rep->ext[i] == r || !strcmp(rep->ext[i]->name, r->name))
			return (int)i;
	return -1;
}

void report_register_rule(struct uc_report *rep, const struct uc_rule *r)
{
	const struct uc_rule **e;
	uint64_t *c;

	if (r->kind >= 0 || report_ext_slot(rep, r) >= 0)
		return;
	e = realloc(rep->ext, (rep->next + 1) * sizeof(*e));
	if (!e)
		return;
	rep->ext = e;
	c = realloc(rep->ext_count, (rep->next + 1) * sizeof(*c));
	if (!c)
		return;
	rep->ext_count = c;
	rep->ext[rep->next] = r;
	rep->ext_count[rep->next++] = 0;
}

int report_rule_index(const struct uc_report *rep, const struct uc_rule *r)
{
	return r->kind >= 0 ? r->kind : uc_kinds_count() + report_ext_slot(rep, r);
}

uint64_t report_rule_key(const struct uc_rule *r)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	if (r->kind >= 0)
		return (uint64_t)r->kind;
	for (const char *s = r->name; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

uint64_t report_finding_key(const struct uc_finding *f)
{
	return f->key ? uc_key_mix(f->key, report_rule_key(f->rule)) : 0;
}

const char *report_rule_type(const struct uc_rule *r)
{
	return r->type ? r->type : r->kind >= 0 ? "hazard" : "other";
}

const char *uc_severity_name(enum uc_severity s)
{
	return s == UC_SEV_ERROR ? "error" : s == UC_SEV_WARNING ? "warning" : "note";
}

int report_frames(const struct uc_report *rep, uint64_t id, struct uc_supp_frame *fr,
		  int max)
{
	if (!rep->stack_frames || !id)
		return 0;
	return rep->stack_frames(rep->stack_ctx, id, fr, max);
}
