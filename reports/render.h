/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside reports/: the three renderers of a finding (text, JSON, SARIF)
 * and what they share with report.c (report_rules.c). Nothing outside reports/ includes
 * this; the rest of the program sees report.h and finding.h.
 */
#ifndef UC_RENDER_H
#define UC_RENDER_H

#include "report.h"

/* Frames asked of the symbolizer per stack (suppressions, JSON, SARIF). */
#define UC_SUPP_FRAMES 24

/* The symbolized frames of stack @id; 0 if none (or no symbolizer). */
int report_frames(const struct uc_report *rep, uint64_t id, struct uc_supp_frame *fr,
		  int max);

/* @r's slot among the rules outside the hazard kinds (rep->ext), -1 if
 * it has none (yet). */
int report_ext_slot(const struct uc_report *rep, const struct uc_rule *r);
/* The rule's family: "hazard" for the kinds, else its type ("doctor"),
 * "other" if it gives none. JSON rule_type, the summary's grouping. */
const char *report_rule_type(const struct uc_rule *r);
/* "error", "warning", "note" */
const char *uc_severity_name(enum uc_severity s);
/* @r's position in SARIF's driver.rules: the hazard kinds first, in
 * enum order, then the other rules as registered. */
int report_rule_index(const struct uc_report *rep, const struct uc_rule *r);
/* The number a finding's key is mixed with: the kind, or for other
 * rules a hash of the name (stable from run to run, for fingerprints). */
uint64_t report_rule_key(const struct uc_rule *r);
/* Dedup key of @f (its key mixed with its rule); 0 if @f has none. */
uint64_t report_finding_key(const struct uc_finding *f);

/* The finding's text on rep->out (and its suppression block, with
 * --gen-suppressions). */
void render_text(struct uc_report *rep, const struct uc_finding *f);
/* FINDING of docs/json.md, without its "count" (known at the end). */
json_object *render_json(const struct uc_report *rep, const struct uc_finding *f);
/* A SARIF result, without properties.count. */
json_object *render_sarif(const struct uc_report *rep, const struct uc_finding *f);

#endif
