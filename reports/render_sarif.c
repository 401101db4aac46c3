// SPDX-License-Identifier: GPL-2.0
/*
 * Findings as a SARIF 2.1.0 log (docs/sarif.md): a rule per hazard kind
 * and per other rule registered or seen, a result per unique finding.
 */
#include "render.h"

#include <string.h>

/* A result names the first own frame of at most this many of its stacks:
 * each one costs a symbolization. */
#define SARIF_STACKS 12

static const char *sarif_level(enum uc_severity s)
{
	return uc_severity_name(s);	/* SARIF spells them the same */
}

/* The first frame in the user's own source: a relative path (as the
 * compiler recorded it) or one under srcroot; the URI is made relative. */
static bool own_frame(const struct uc_report *rep, uint64_t id, const char **uri, int *line)
{
	struct uc_supp_frame fr[UC_SUPP_FRAMES];
	size_t rl = rep->srcroot ? strlen(rep->srcroot) : 0;
	int n = report_frames(rep, id, fr, UC_SUPP_FRAMES);

	for (int i = 0; i < n; i++) {
		const char *f = fr[i].file;

		if (!f || fr[i].line <= 0)
			continue;
		if (rl && !strncmp(f, rep->srcroot, rl) && f[rl] == '/') {
			*uri = f + rl + 1;
			*line = fr[i].line;
			return true;
		}
		if (f[0] != '/' && strncmp(f, "../", 3)) {
			*uri = f;
			*line = fr[i].line;
			return true;
		}
	}
	return false;
}

static json_object *text_object(const char *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "text", uc_json_string(s));
	return o;
}

static json_object *physical_location(const char *uri, int line)
{
	json_object *pl = json_object_new_object(), *al = json_object_new_object(),
		    *region = json_object_new_object();

	json_object_object_add(al, "uri", json_object_new_string(uri));
	json_object_object_add(al, "uriBaseId", json_object_new_string("%SRCROOT%"));
	json_object_object_add(region, "startLine", json_object_new_int(line));
	json_object_object_add(pl, "artifactLocation", al);
	json_object_object_add(pl, "region", region);
	return pl;
}

json_object *render_sarif(const struct uc_report *rep, const struct uc_finding *f)
{
	json_object *r = json_object_new_object(), *locs = json_object_new_array(),
		    *related = json_object_new_array(), *fp = json_object_new_object(),
		    *props = json_object_new_object();
	int nst = f->nstacks < SARIF_STACKS ? f->nstacks : SARIF_STACKS;
	uint64_t key = report_finding_key(f);
	int line, primary = -1;
	const char *uri;
	char hex[24];

	json_object_object_add(r, "ruleId", json_object_new_string(f->rule->name));
	json_object_object_add(r, "ruleIndex", json_object_new_int(report_rule_index(rep, f->rule)));
	json_object_object_add(r, "level", json_object_new_string(sarif_level(f->severity)));
	json_object_object_add(r, "message", text_object(f->headline));
	for (int i = 0; i < nst && primary < 0; i++) {
		if (own_frame(rep, f->stacks[i].id, &uri, &line)) {
			json_object *loc = json_object_new_object();

			json_object_object_add(loc, "physicalLocation", physical_location(uri, line));
			json_object_array_add(locs, loc);
			primary = i;
		}
	}
	for (int i = 0; i < nst; i++) {
		json_object *loc;

		if (i == primary || !own_frame(rep, f->stacks[i].id, &uri, &line))
			continue;
		loc = json_object_new_object();
		json_object_object_add(loc, "id", json_object_new_int(i));
		json_object_object_add(loc, "physicalLocation", physical_location(uri, line));
		json_object_object_add(loc, "message", text_object(f->stacks[i].role));
		json_object_array_add(related, loc);
	}
	json_object_object_add(r, "locations", locs);
	json_object_object_add(r, "relatedLocations", related);
	/* Stable across runs and uploads: rule + call sites (file, offset). */
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)(key ? key :
		 uc_key_mix(report_rule_key(f->rule), 0)));
	json_object_object_add(fp, "uringcheckSite/v1", json_object_new_string(hex));
	json_object_object_add(r, "partialFingerprints", fp);
	if (f->spans_loss)
		json_object_object_add(props, "evidence_spans_loss", json_object_new_boolean(1));
	json_object_object_add(r, "properties", props);
	return r;
}

/* SARIF's help: why it matters, then what to do. */
static json_object *help_object(const struct uc_rule *r)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "%s%s%s", r->help ? r->help : "",
		 r->help && r->fix ? " " : "", r->fix ? r->fix : "");
	return text_object(buf);
}

static json_object *rule_json(const struct uc_report *rep, const struct uc_rule *r)
{
	json_object *o = json_object_new_object(), *dc = json_object_new_object(),
		    *props = json_object_new_object(), *tags = json_object_new_array();
	enum uc_severity level = r->severity;

	if (r->kind >= 0)
		level = rep->fail_on & UC_KIND_BIT(r->kind) ? UC_SEV_ERROR : UC_SEV_WARNING;
	json_object_object_add(o, "id", json_object_new_string(r->name));
	/* SARIF wants a name only when it differs from the id. */
	if (r->sarif_id && strcmp(r->sarif_id, r->name))
		json_object_object_add(o, "name", json_object_new_string(r->sarif_id));
	json_object_object_add(o, "shortDescription",
			       text_object(r->short_desc ? r->short_desc : r->name));
	json_object_object_add(o, "fullDescription", text_object(r->full_desc ? r->full_desc :
					r->short_desc ? r->short_desc : r->name));
	json_object_object_add(o, "help", help_object(r));
	json_object_object_add(dc, "level", json_object_new_string(sarif_level(level)));
	json_object_object_add(o, "defaultConfiguration", dc);
	json_object_array_add(tags, json_object_new_string("io_uring"));
	json_object_array_add(tags, json_object_new_string(r->kind >= 0 ? "memory-safety" :
							   report_rule_type(r)));
	json_object_object_add(props, "tags", tags);
	/* A hazard is a fact the kernel side confirmed; other rules advise. */
	if (r->kind >= 0)
		json_object_object_add(props, "precision", json_object_new_string("high"));
	if (r->security_severity)
		json_object_object_add(props, "security-severity",
				       json_object_new_string(r->security_severity));
	json_object_object_add(o, "properties", props);
	return o;
}

void report_write_sarif(struct uc_report *rep, FILE *out, const char *version)
{
	json_object *doc = json_object_new_object(), *runs = json_object_new_array(),
		    *run = json_object_new_object(), *tool = json_object_new_object(),
		    *driver = json_object_new_object(), *rules = json_object_new_array(),
		    *bases = json_object_new_object(), *root = json_object_new_object(),
		    *results = json_object_new_array(), *props = json_object_new_object();
	char uri[4200];

	/* Every hazard kind, then every other rule registered or seen: the
	 * order report_rule_index() counts in. */
	for (int k = 0; k < uc_kinds_count(); k++)
		json_object_array_add(rules, rule_json(rep, uc_kind_rule(k)));
	for (size_t i = 0; i < rep->next; i++)
		json_object_array_add(rules, rule_json(rep, rep->ext[i]));
	json_object_object_add(driver, "name", json_object_new_string("uringcheck"));
	json_object_object_add(driver, "version", uc_json_string(version));
	json_object_object_add(driver, "informationUri",
			       json_object_new_string("https://example.invalid/uringcheck"));
	json_object_object_add(driver, "rules", rules);
	json_object_object_add(tool, "driver", driver);
	json_object_object_add(run, "tool", tool);

	snprintf(uri, sizeof(uri), "file://%s/", rep->srcroot ? rep->srcroot : "");
	json_object_object_add(root, "uri", json_object_new_string(uri));
	json_object_object_add(bases, "%SRCROOT%", root);
	json_object_object_add(run, "originalUriBaseIds", bases);

	for (size_t i = 0; i < rep->sarif.n; i++) {
		const struct uc_json_item *it = &rep->sarif.v[i];
		uint64_t n = it->key ? dedup_count(&rep->dedup, it->key) : 1;
		json_object *rp;

		if (json_object_object_get_ex(it->obj, "properties", &rp))
			json_object_object_add(rp, "count", json_object_new_uint64(n ? n : 1));
		json_object_array_add(results, json_object_get(it->obj));
	}
	json_object_object_add(run, "results", results);
	/* Findings events lost could explain: counted, never results. */
	{
		json_object *w = json_object_new_object();

		for (int k = 0; k < uc_kinds_count(); k++)
			json_object_object_add(w, uc_kind_name(k),
					       json_object_new_uint64(rep->withheld[k]));
		json_object_object_add(props, "withheld", w);
	}
	json_object_object_add(run, "properties", props);
	json_object_array_add(runs, run);

	json_object_object_add(doc, "$schema",
			       json_object_new_string("https://json.schemastore.org/sarif-2.1.0.json"));
	json_object_object_add(doc, "version", json_object_new_string("2.1.0"));
	json_object_object_add(doc, "runs", runs);
	uc_json_write(out, doc);
}
