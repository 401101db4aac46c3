/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The doctor: conservative rules over a profile, each naming one known
 * pathology with its evidence in numbers and a fix. A rule is one entry
 * in the table of doctor.c plus its judge function; docs/profile.md
 * describes each (evidence, threshold and why, fix).
 *
 * Thresholds favour precision: a doctor that cries wolf is switched off.
 */
#ifndef UC_PF_DOCTOR_H
#define UC_PF_DOCTOR_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "run_facts.h"
#include "snapshot.h"

struct doctor_rule;

struct doctor_verdict {
	const struct doctor_rule *rule;
	uint32_t pid;
	char title[200];		/* one line, after "doctor: RULE: " */
	char *body;			/* evidence as text lines, "  ..." */
	json_object *evidence;		/* the same, as named values */
};

struct doctor_rule {
	const char *name;		/* stable: "punt-ratio" */
	const char *severity;		/* "warning" or "note" */
	const char *summary;		/* what it means, one sentence */
	const char *fix;		/* what to do */
	void (*judge)(const struct doctor_rule *r, const struct pf_snapshot *s,
		      const struct pf_run_facts *f, struct doctor_verdict **v,
		      size_t *n);
};

struct uc_finding;
/* A verdict as a finding of the shared model (reports/finding.h): its
 * rule (type "doctor"), severity, headline, text and evidence; @pid
 * for a run-level verdict. */
void doctor_finding(const struct doctor_verdict *v, uint32_t pid, struct uc_finding *out);

/* Every rule, in report order. */
const struct doctor_rule *doctor_rules(size_t *n);
/* Judges a whole profile; the verdicts are appended to *v. */
void doctor_run(const struct pf_snapshot *s, const struct pf_run_facts *f,
		struct doctor_verdict **v, size_t *n);
void doctor_free(struct doctor_verdict *v, size_t n);

#endif
