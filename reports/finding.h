/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one shape of a finding, whoever found it.
 *
 * A rule (struct uc_rule) says what can be found: its stable name, its
 * SARIF descriptions, the fix. A finding (struct uc_finding) is one
 * occurrence: which rule, which process, the words (headline, title,
 * body), the evidence as named values, the stacks involved.
 *
 * The hazard kinds are rules a mode registers (reports/kind_registry.h;
 * the check mode's table is checker/kinds/kinds.def, its builders, one
 * file per kind, in checker/kinds/). Other modules (a profile mode's
 * "doctor", say) define their own rules with .kind = -1 and a .type
 * naming their family; their findings go through the same
 * report_finding() and so reach the text, --json and --sarif alike, but
 * they never make the run fail.
 *
 * The renderers (reports/render_*.c) read a finding and never the
 * per-kind structs: a format learns nothing new when a kind is added.
 */
#ifndef UC_FINDING_H
#define UC_FINDING_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

enum uc_severity {
	UC_SEV_ERROR,			/* fails the run (hazard kinds in --fail-on) */
	UC_SEV_WARNING,
	UC_SEV_NOTE,			/* advice; never a hazard kind */
};

struct uc_rule {
	const char *name;		/* stable: "overlap", "punt-ratio" */
	const char *sarif_id;		/* SARIF rule name: "OverlappingInFlightBuffers" */
	const char *type;		/* NULL: a hazard kind; else the family,
					 * "doctor": JSON rule_type, text "doctor: NAME" */
	const char *short_desc;		/* one line */
	const char *full_desc;
	const char *help;		/* why it matters; NULL: the fix says it all */
	const char *fix;		/* what to do about it; NULL: none */
	const char *security_severity;	/* GitHub's "0.0".."10.0"; NULL: none */
	enum uc_severity severity;	/* rules outside the hazard kinds: their
					 * level; hazard kinds: their default
					 * (error: fails the run), a run's
					 * --fail-on decides */
	int kind;			/* the hazard kind's number (its index in
					 * the registry), or -1: not a hazard kind */
};

/* A stack a finding involves; 0 and a reason when there is none. */
struct uc_stack_ref {
	const char *role;		/* "request submitted", "called", ... */
	uint64_t id;			/* the checker's stack id, 0: none */
	const char *no_stack;		/* why there is none: static text */
};

/* A piece of the body: text lines, or one of the stacks shown here. */
struct uc_body_part {
	char *text;			/* lines ending in '\n'; or a stack's title */
	int stack;			/* -1: text; else index into stacks[] */
};

struct uc_report;
struct uc_finding;

/* Fills in a finding's details when it is to be shown or recorded. */
typedef void (*uc_describe_fn)(struct uc_finding *f, const struct uc_report *rep);

struct uc_finding {
	const struct uc_rule *rule;
	enum uc_severity severity;	/* hazard kinds: set by report_finding() */
	uint32_t pid;
	char headline[256];		/* the SUMMARY text; JSON "headline" */
	char *title;			/* after "uringcheck: KIND: " on the header line */
	struct uc_body_part *body;	/* between the header and the SUMMARY line */
	int nbody;
	json_object *evidence;		/* named values, owned by the finding */
	struct uc_stack_ref *stacks;	/* in JSON order; SARIF locations */
	int nstacks;
	char *fix;			/* this finding's own fix, shown in the text;
					 * NULL: JSON gives the rule's */
	uint64_t key;			/* dedup: same key, same problem; 0: unique */
	uint64_t site_stack;		/* the stack suppressions match and the
					 * repeat list is named after; 0: none */
	bool spans_loss;		/* confirmed although events were lost */
	bool brief;			/* text: header and body only (no SUMMARY
					 * line, no suppression block) */
	/*
	 * Optional: when set, report_finding() calls it for the title,
	 * body, evidence, stacks and fix, and only for a finding that is
	 * printed or recorded. A program can commit one hazard millions of
	 * times; a repeat then costs its headline and a count, nothing more.
	 */
	uc_describe_fn describe;
	const void *src;		/* what describe reads */
	/* Optional, likewise: fills the headline from src, for a finding
	 * that needs one (printed, recorded, the first of its key, or drawn
	 * by --trace). A suppressed or repeated one is never formatted: in a
	 * run with two million repeats, formatting headlines was a fifth of
	 * the checker's time. */
	void (*headline_fn)(struct uc_finding *f);
};

/* A fresh finding of @rule in process @pid (severity: the rule's). */
void uc_finding_init(struct uc_finding *f, const struct uc_rule *rule, uint32_t pid);
/* Releases what @f owns (report_finding() does this itself). */
void uc_finding_free(struct uc_finding *f);

void uc_finding_headline(struct uc_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Appends to the title. */
void uc_finding_title(struct uc_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Appends to the body; the text carries its own indentation and '\n'. */
void uc_finding_text(struct uc_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void uc_finding_fix(struct uc_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Adds a stack (role, id, reason if none: static strings); its index. */
int uc_finding_stack(struct uc_finding *f, const char *role, uint64_t id,
		     const char *no_stack);
/* Shows stack @i in the body here, as "    TITLE" and its frames (only
 * when stacks are printed at all). */
void uc_finding_show_stack(struct uc_finding *f, const char *title, int i);
/* Adds evidence @name = @v (@v's reference passes to the finding). */
void uc_finding_evidence(struct uc_finding *f, const char *name, json_object *v);

/*
 * Tells one finding: counts it (hazard kinds and rules of other
 * families apart), applies --hazards, suppressions, dedup and
 * --max-reports, then renders it as text, and records it for --json and
 * --sarif. Frees what @f owns. A rule seen here for the first time is
 * registered (report_register_rule).
 */
void report_finding(struct uc_report *rep, struct uc_finding *f);

/*
 * Lists @rule (kind -1) before any finding of it: its SARIF rule entry
 * and its zero count in the JSON summary are then there in every run.
 * Optional; @rule must outlive @rep.
 */
void report_register_rule(struct uc_report *rep, const struct uc_rule *rule);

#endif
