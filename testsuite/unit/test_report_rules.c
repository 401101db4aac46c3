// SPDX-License-Identifier: GPL-2.0
/*
 * A rule that is not a hazard kind (a "doctor" rule, kind -1) through
 * report_finding(): its text, its JSON finding and summary count, its
 * SARIF rule and result, and an exit status it leaves alone. Also that a
 * hazard finding carries its rule's fix in the JSON.
 * Prints "ok" and exits 0, or the first failed check and exits 1.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "kinds/kind_reports.h"

#define CHECK(c) do { if (!(c)) { printf("failed: %s (line %d)\n", #c, __LINE__); exit(1); } } while (0)

/* "runs.0.tool.driver.rules.N.FIELD" */
static const char *rule_path(int n, const char *field)
{
	static char p[8][96];
	static int next;
	char *b = p[next++ & 7];

	snprintf(b, sizeof(p[0]), "runs.0.tool.driver.rules.%d.%s", n, field);
	return b;
}

static const struct uc_rule punt_ratio = {
	.name = "punt-ratio", .sarif_id = "RequestsPuntedToWorkers", .type = "doctor",
	.short_desc = "Most requests of one opcode ran in io-wq workers",
	.full_desc = "The kernel could not complete them inline and handed them to workers.",
	.help = "Each punt costs a thread switch.", .fix = "Use O_DIRECT.",
	.severity = UC_SEV_WARNING, .kind = -1,
};
static const struct uc_rule quiet = {
	.name = "never-fires", .type = "doctor", .short_desc = "registered, not seen",
	.severity = UC_SEV_NOTE, .kind = -1,
};

static void doctor(struct uc_report *rep)
{
	struct uc_finding f;

	uc_finding_init(&f, &punt_ratio, 42);
	uc_finding_headline(&f, "punt-ratio WRITE 97%% in pid %u", 42);
	uc_finding_title(&f, "97%% of WRITE requests ran in io-wq workers");
	uc_finding_text(&f, "  1000 of 1031 WRITE requests on ring fd 5\n");
	uc_finding_evidence(&f, "opcode", json_object_new_string("WRITE"));
	uc_finding_evidence(&f, "punted", json_object_new_int64(1000));
	uc_finding_evidence(&f, "ratio", uc_json_double(0.97));
	uc_finding_fix(&f, "open the file with O_DIRECT");
	report_finding(rep, &f);
}

static json_object *load(const char *buf)
{
	json_object *o = json_tokener_parse(buf);

	CHECK(o);
	return o;
}

static json_object *get(json_object *o, const char *path)
{
	char *copy = strdup(path), *save = NULL;

	for (char *k = strtok_r(copy, ".", &save); k && o; k = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, atoi(k));
		else if (!json_object_object_get_ex(o, k, &o))
			o = NULL;
	}
	free(copy);
	return o;
}

static const char *str(json_object *o, const char *path)
{
	json_object *v = get(o, path);

	return v ? json_object_get_string(v) : "";
}

int main(void)
{
	struct uc_kernel_drop_finding drop = { .tgid = 42, .ring_fd = 5, .sq_dropped = 1, .key = 9 };
	char *text, *js, *sarif;
	size_t tl, jl, sl;
	FILE *out = open_memstream(&text, &tl), *t;
	struct uc_report rep;
	json_object *d, *s;
	char *argv[] = { "./prog", NULL };

	kinds_register();
	report_init(&rep, out, 100, uc_kinds_fail_default());
	rep.want_json = rep.want_sarif = true;
	report_register_rule(&rep, &quiet);
	doctor(&rep);
	report_summary(&rep, 42);
	/* advice never fails a run */
	CHECK(report_exit_status(&rep, 0, 66) == 0);
	fflush(out);	/* text: what was written so far */
	CHECK(strstr(text, "==42==WARNING: uringcheck: doctor: punt-ratio: 97% of WRITE requests "
			   "ran in io-wq workers\n  1000 of 1031 WRITE requests on ring fd 5\n"
			   "  fix: open the file with O_DIRECT\n"
			   "SUMMARY: uringcheck: punt-ratio WRITE 97% in pid 42\n"));
	CHECK(strstr(text, "==42==uringcheck: 1 doctor finding: punt-ratio 1\n"));
	CHECK(!strstr(text, "findings:"));	/* no hazard count line */

	report_kernel_drop(&rep, &drop);
	CHECK(report_exit_status(&rep, 0, 66) == 66);

	t = open_memstream(&js, &jl);
	report_write_json(&rep, t, "test", 42, argv, 0, NULL, 0);
	fclose(t);
	d = load(js);
	CHECK(!strcmp(str(d, "findings.0.kind"), "punt-ratio"));
	CHECK(!strcmp(str(d, "findings.0.rule_type"), "doctor"));
	CHECK(!strcmp(str(d, "findings.0.severity"), "warning"));
	CHECK(!strcmp(str(d, "findings.0.evidence.ratio"), "0.97"));
	CHECK(json_object_get_int64(get(d, "findings.0.evidence.punted")) == 1000);
	CHECK(!strcmp(str(d, "findings.0.fix"), "open the file with O_DIRECT"));
	CHECK(json_object_array_length(get(d, "findings.0.stacks")) == 0);
	CHECK(!strcmp(str(d, "findings.1.kind"), "dropped"));
	CHECK(!strcmp(str(d, "findings.1.rule_type"), "hazard"));
	CHECK(!strcmp(str(d, "findings.1.fix"), uc_kind_rules[UC_KIND_DROPPED].fix));
	CHECK(json_object_get_int64(get(d, "summary.doctor.punt-ratio")) == 1);
	CHECK(get(d, "summary.doctor.never-fires") &&
	      json_object_get_int64(get(d, "summary.doctor.never-fires")) == 0);
	CHECK(json_object_get_int64(get(d, "summary.findings.dropped")) == 1);

	t = open_memstream(&sarif, &sl);
	report_write_sarif(&rep, t, "test");
	fclose(t);
	s = load(sarif);
	/* the hazard kinds, then the other rules as registered */
	CHECK(!strcmp(str(s, rule_path(UC_KIND__COUNT, "id")), "never-fires"));
	CHECK(!get(s, rule_path(UC_KIND__COUNT, "name")));	/* none of its own */
	CHECK(!strcmp(str(s, rule_path(UC_KIND__COUNT + 1, "id")), "punt-ratio"));
	CHECK(!strcmp(str(s, rule_path(UC_KIND__COUNT + 1, "help.text")),
		      "Each punt costs a thread switch. Use O_DIRECT."));
	CHECK(!strcmp(str(s, rule_path(UC_KIND__COUNT + 1, "defaultConfiguration.level")),
		      "warning"));
	CHECK(!strcmp(str(s, "runs.0.results.0.ruleId"), "punt-ratio"));
	CHECK(json_object_get_int(get(s, "runs.0.results.0.ruleIndex")) == UC_KIND__COUNT + 1);
	CHECK(!strcmp(str(s, "runs.0.results.1.ruleId"), "dropped"));
	CHECK(json_object_get_int(get(s, "runs.0.results.1.ruleIndex")) == UC_KIND_DROPPED);

	json_object_put(d);
	json_object_put(s);
	fclose(out);
	free(text);
	free(js);
	free(sarif);
	report_free(&rep);
	printf("ok\n");
	return 0;
}
