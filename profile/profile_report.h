/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Telling a profile: the text report (report_text.c), the JSON document
 * (report_json.c, docs/profile.md), the live interval table (live.c) and
 * the OpenMetrics exposition (metrics_text.c).
 */
#ifndef UC_PF_REPORT_H
#define UC_PF_REPORT_H

#include <json-c/json.h>
#include <stdio.h>

#include "doctor.h"
#include "filter.h"
#include "run_facts.h"
#include "snapshot.h"

/* @what names the run: "./prog (pid 123)", "pid 123", "every process";
 * @filt (-e; NULL: none) hides opcode rows. */
void pf_report_text(FILE *out, const struct pf_snapshot *s, const struct pf_run_facts *f,
		    const struct uc_filter *filt, const char *what);
/* -c: the one table of compact.c instead. */
void pf_compact_text(FILE *out, const struct pf_snapshot *s, const struct pf_run_facts *f,
		     const struct uc_filter *filt, const char *what);
/* "doctor: N findings:", the line the doctor's findings follow. */
void pf_report_doctor(FILE *out, size_t nv);

/* The "profile" object of the JSON document (docs/profile.md). */
json_object *pf_report_json(const struct pf_snapshot *s, const struct pf_run_facts *f);
/* One doctor verdict as a finding object (the shape of docs/json.md). */
json_object *pf_verdict_json(const struct doctor_verdict *v);

/* One -i interval: @d is the difference of two readings over @secs. */
void pf_live_header(FILE *out);
void pf_live_rows(FILE *out, const struct pf_snapshot *d, double secs, double t,
		  const struct uc_filter *filt);

/* A reading in Prometheus's text format 0.0.4, or in OpenMetrics 1.0;
 * a malloc'ed string. */
char *pf_metrics_text(const struct pf_snapshot *s, const struct pf_run_facts *f);
char *pf_openmetrics_text(const struct pf_snapshot *s, const struct pf_run_facts *f);

#endif
