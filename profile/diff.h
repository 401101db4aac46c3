/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --baseline and --diff: a run compared with an earlier one.
 *
 * Both sides are read from the same JSON, the "profile" member of the
 * --json document (docs/profile.md): the baseline from the file a
 * --baseline run saved, this run from the object its own --json gets.
 * So one reader serves both, and a baseline is judged exactly as this
 * run would be. Opcodes are summed over rings and processes (a PID or a
 * ring's descriptor means nothing across runs).
 *
 * What counts as a change is in diff.c's thresholds, documented in
 * docs/profile.md (--diff).
 */
#ifndef UC_PF_DIFF_H
#define UC_PF_DIFF_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "filter.h"
#include "profile.h"

struct pf_sum_op {
	bool seen;
	uint64_t completed, errors, bytes;
	uint64_t timed, punted;		/* paths known; punted: ran in io-wq */
	uint64_t max_ns;
	__u64 hist[PF_LAT_BUCKETS];	/* as pf_hist_quantile takes them */
};

struct pf_sum_rule {
	char name[48];
	char severity[16];
};

struct pf_summary {
	double window_s;
	bool paths;
	struct pf_sum_op ops[PF_MAX_OPS];
	struct pf_sum_rule *rules;	/* the doctor's findings, by rule */
	size_t nrules;
};

/* Reads the --baseline file @path (as the invoking user). 0, or -1 with
 * the reason in @err: unreadable, not JSON, another schema, not a
 * profile, a member missing or of the wrong type. */
int pf_baseline_load(const char *path, struct pf_summary *s, char *err, size_t errlen);
/* The same from the file's @n bytes at @text (the fuzz harness's way in;
 * nothing is read past them). */
int pf_baseline_parse(const char *text, size_t n, struct pf_summary *s, char *err,
		      size_t errlen);
/* This run, from its "profile" object and its doctor findings (finding
 * objects of docs/json.md, rule_type "doctor"). */
int pf_summary_from_json(json_object *profile, json_object *findings, struct pf_summary *s,
			 char *err, size_t errlen);
void pf_summary_free(struct pf_summary *s);

/* The table and the doctor's findings new and gone, as text; @name is
 * the baseline's file name. */
void pf_diff_text(FILE *out, const struct pf_summary *base, const struct pf_summary *now,
		  const char *name, const struct uc_filter *filt);
/* The same as the "diff" member of the profile's JSON. */
json_object *pf_diff_json(const struct pf_summary *base, const struct pf_summary *now,
			  const char *name);

#endif
