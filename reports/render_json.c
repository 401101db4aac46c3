// SPDX-License-Identifier: GPL-2.0
/*
 * A finding as JSON (FINDING of docs/json.md), and the --json document
 * around the findings kept during the run.
 */
#include "render.h"

static json_object *frame_json(const struct uc_supp_frame *fr)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "pc", uc_json_hex(fr->pc));
	json_object_object_add(o, "function", uc_json_string(fr->function));
	json_object_object_add(o, "file", uc_json_string(fr->file));
	json_object_object_add(o, "line", json_object_new_int(fr->line));
	json_object_object_add(o, "inlined", json_object_new_boolean(fr->inlined));
	json_object_object_add(o, "module", uc_json_string(fr->module));
	json_object_object_add(o, "module_offset", uc_json_hex(fr->module_offset));
	return o;
}

/* STACK: its frames, or none and why. */
static json_object *stack_json(const struct uc_report *rep, const struct uc_stack_ref *s)
{
	struct uc_supp_frame fr[UC_SUPP_FRAMES];
	int n = report_frames(rep, s->id, fr, UC_SUPP_FRAMES);
	json_object *o = json_object_new_object(), *frames = json_object_new_array();

	for (int i = 0; i < n; i++)
		json_object_array_add(frames, frame_json(&fr[i]));
	json_object_object_add(o, "role", uc_json_string(s->role));
	json_object_object_add(o, "frames", frames);
	if (!n)
		json_object_object_add(o, "no_stack", uc_json_string(s->no_stack));
	return o;
}

json_object *render_json(const struct uc_report *rep, const struct uc_finding *f)
{
	json_object *o = json_object_new_object(), *stacks = json_object_new_array();
	const char *fix = f->fix ? f->fix : f->rule->fix;

	for (int i = 0; i < f->nstacks; i++)
		json_object_array_add(stacks, stack_json(rep, &f->stacks[i]));
	json_object_object_add(o, "kind", json_object_new_string(f->rule->name));
	json_object_object_add(o, "rule_type",
			       json_object_new_string(report_rule_type(f->rule)));
	json_object_object_add(o, "severity", json_object_new_string(uc_severity_name(f->severity)));
	json_object_object_add(o, "pid", json_object_new_int64(f->pid));
	json_object_object_add(o, "headline", json_object_new_string(f->headline));
	json_object_object_add(o, "evidence_spans_loss", json_object_new_boolean(f->spans_loss));
	json_object_object_add(o, "evidence", f->evidence ? json_object_get(f->evidence) :
			       json_object_new_object());
	json_object_object_add(o, "stacks", stacks);
	json_object_object_add(o, "fix", uc_json_string(fix));
	return o;
}

/* {"overlap": N, ...} for every hazard kind. */
static json_object *per_kind(const uint64_t *v)
{
	json_object *o = json_object_new_object();

	for (int k = 0; k < uc_kinds_count(); k++)
		json_object_object_add(o, uc_kind_name(k), json_object_new_uint64(v[k]));
	return o;
}

/* The other rules' counts, one object per family: "doctor": {...}. */
static void per_family(const struct uc_report *rep, json_object *summary)
{
	for (size_t i = 0; i < rep->next; i++) {
		const struct uc_rule *r = rep->ext[i];
		const char *type = report_rule_type(r);
		json_object *fam;

		if (!json_object_object_get_ex(summary, type, &fam)) {
			fam = json_object_new_object();
			json_object_object_add(summary, type, fam);
		}
		json_object_object_add(fam, r->name, json_object_new_uint64(rep->ext_count[i]));
	}
}

void report_write_json(struct uc_report *rep, FILE *out, const char *version,
		       uint32_t pid, char *const *argv, int exit_status,
		       const struct uc_json_counter *c, int nc)
{
	json_object *doc = json_object_new_object(), *o, *a;

	json_object_object_add(doc, "schema", json_object_new_int(UC_JSON_SCHEMA));
	o = json_object_new_object();
	json_object_object_add(o, "name", json_object_new_string("uringcheck"));
	json_object_object_add(o, "version", uc_json_string(version));
	json_object_object_add(doc, "tool", o);

	/* named by the run (run/run.c): reports/ knows no mode */
	json_object_object_add(doc, "mode", uc_json_string(rep->mode));
	o = json_object_new_object();
	if (rep->attached == 2) {		/* -a */
		json_object_object_add(o, "all_processes", json_object_new_boolean(1));
	} else if (rep->attached) {		/* -p */
		json_object_object_add(o, "pid", json_object_new_int64(pid));
		json_object_object_add(o, "attached", json_object_new_boolean(1));
	} else {
		a = json_object_new_array();
		for (int i = 0; argv && argv[i]; i++)
			json_object_array_add(a, json_object_new_string(argv[i]));
		json_object_object_add(o, "pid", json_object_new_int64(pid));
		json_object_object_add(o, "exit_status", json_object_new_int(exit_status));
		json_object_object_add(o, "argv", a);
	}
	json_object_object_add(doc, "target", o);

	a = json_object_new_array();
	for (size_t i = 0; i < rep->json.n; i++) {
		const struct uc_json_item *it = &rep->json.v[i];
		uint64_t n = it->key ? dedup_count(&rep->dedup, it->key) : 1;

		/* this finding and its repeats */
		json_object_object_add(it->obj, "count", json_object_new_uint64(n ? n : 1));
		json_object_array_add(a, json_object_get(it->obj));
	}
	json_object_object_add(doc, "findings", a);

	o = json_object_new_object();
	json_object_object_add(o, "findings", per_kind(rep->count));
	json_object_object_add(o, "suppressed", per_kind(rep->suppressed));
	json_object_object_add(o, "withheld", per_kind(rep->withheld));
	json_object_object_add(o, "repeats", json_object_new_uint64(rep->repeats));
	a = json_object_new_object();
	for (int i = 0; i < nc; i++)
		json_object_object_add(a, c[i].name, json_object_new_uint64(c[i].value));
	json_object_object_add(o, "counters", a);
	per_family(rep, o);
	json_object_object_add(doc, "summary", o);
	if (rep->profile_json)	/* --profile: docs/profile.md */
		json_object_object_add(doc, "profile", json_object_get(rep->profile_json));
	uc_json_write(out, doc);
}
