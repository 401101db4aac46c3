/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report state (counts, dedup, suppressions, the findings kept for
 * --json and --sarif), the closing summary and the exit status policy.
 *
 * A mode's builders (the check mode's: checker/kinds/) turn what they
 * found into a struct uc_finding (reports/finding.h) and hand it to
 * report_finding(), which tells it in every format.
 */
#ifndef UC_REPORT_H
#define UC_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dedup.h"
#include "finding.h"
#include "json.h"
#include "kind_registry.h"
#include "suppressions.h"

/* Prints stack @id's frames, or @no_stack as a sentence if there is none. */
typedef void (*uc_stack_printer)(void *ctx, FILE *out, uint64_t id,
				 const char *no_stack);

/* The symbolized frames of stack @id (for suppressions); 0 if none. */
typedef int (*uc_stack_frames)(void *ctx, uint64_t id, struct uc_supp_frame *out,
			       int max);

struct uc_report {
	FILE *out;
	uc_stack_printer print_stack;	/* NULL: stacks not shown */
	uc_stack_frames stack_frames;
	void *stack_ctx;
	struct uc_suppressions supp;
	bool gen_suppressions;
	bool stacks_off;		/* --stack-size=0: say so where one is missing */
	bool want_json;			/* collect findings for --json */
	struct uc_json_list json;	/* finding objects (docs/json.md) */
	bool want_sarif;		/* and for --sarif */
	struct uc_json_list sarif;	/* SARIF result objects */
	const char *srcroot;		/* own sources live under here */
	/* rules outside the hazard kinds, as registered or first seen,
	 * with their counts (never part of the exit status) */
	const struct uc_rule **ext;
	uint64_t *ext_count;
	size_t next;
	/* per hazard kind, indexed by kind (kind_registry.h): suppressed */
	uint64_t suppressed[UC_MAX_KINDS];
	/* findings whose evidence events lost could explain: not reported,
	 * never an error (checker/evidence.h) */
	uint64_t withheld[UC_MAX_KINDS];
	/* told of every finding counted (--trace draws them): the finding,
	 * and a text to show with it (its headline, with the first stack's
	 * frames for the first of a kind of repeat) */
	void (*finding_hook)(void *arg, const struct uc_finding *f, const char *text);
	void *finding_arg;
	/* set by the run (reports/ knows no mode): the JSON document's
	 * "mode" ("check", "profile", "check+profile"), how the target came
	 * ("attached": 1 -p, 2 -a) and --profile's member */
	const char *mode;
	int attached;
	json_object *profile_json;
	unsigned int max_reports;	/* printed in full; the rest counted */
	unsigned int fail_on;		/* kinds that make the run fail */
	unsigned int enabled;		/* kinds reported at all (--hazards) */
	uint64_t count[UC_MAX_KINDS];
	uint64_t printed;
	uint64_t not_printed;
	uint64_t repeats;		/* same problem again: counted only */
	struct uc_dedup dedup;
	/* suppression verdicts by dedup key: matched block i (key mixed
	 * with i), or none */
	struct uc_dedup supp_yes, supp_no;
};

void report_init(struct uc_report *rep, FILE *out, unsigned int max_reports,
		 unsigned int fail_on);
void report_free(struct uc_report *rep);
uint64_t report_total(const struct uc_report *rep);
/* @n findings of kind @k could not be confirmed (events were lost). */
void report_withheld(struct uc_report *rep, int k, uint64_t n);

/* Run-level problems are never silent: one line each, "==PID==WARNING". */
void report_warning(struct uc_report *rep, uint32_t pid, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The closing block: counts per kind; printed when anything was found. */
void report_summary(struct uc_report *rep, uint32_t pid);

/* Run-level counters for the JSON summary (lost events, ...). */
struct uc_json_counter {
	const char *name;
	uint64_t value;
};

/* Writes the --json document (docs/json.md). */
void report_write_json(struct uc_report *rep, FILE *out, const char *version,
		       uint32_t pid, char *const *argv, int exit_status,
		       const struct uc_json_counter *c, int nc);

/* Writes the --sarif document (SARIF 2.1.0, docs/sarif.md). */
void report_write_sarif(struct uc_report *rep, FILE *out, const char *version);

/*
 * The run's exit status: @error_exitcode when a kind in fail_on was found,
 * otherwise the target's own (@target_status, already 128+N for a
 * signal death).
 */
int report_exit_status(const struct uc_report *rep, int target_status,
		       int error_exitcode);

#endif
