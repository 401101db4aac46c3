/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One shape for every finding, whoever makes it (the checker's hazard
 * rules, the profile's doctor) and whichever way it is told (text, JSON,
 * SARIF): a rule, a severity, evidence as named values, the stacks
 * involved, a fix. A new kind or doctor rule is one struct uc_rule plus
 * the code that fills a struct uc_finding; the renderers
 * (render_text.c, render_json.c, render_sarif.c) never change for it.
 */
#ifndef UC_FINDING_H
#define UC_FINDING_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

enum uc_severity {
	UC_SEV_ERROR,			/* fails the run (--fail-on) */
	UC_SEV_WARNING,
	UC_SEV_NOTE,			/* a doctor's remark */
};

struct uc_rule {
	const char *name;		/* stable: "overlap", "punt-ratio" */
	const char *type;		/* "hazard" or "doctor" */
	int kind;			/* enum uc_kind of a hazard, -1 */
	const char *sarif_id;		/* "OverlappingInFlightBuffers" */
	const char *short_desc, *full_desc;
	const char *fix;		/* what to do: SARIF help, JSON "fix" */
	const char *security;		/* GitHub security-severity, or NULL */
};

#define UC_FINDING_STACKS 12

struct uc_finding_stack {
	const char *role;		/* "request submitted" */
	uint64_t id;			/* 0: none */
	const char *no_stack;		/* why there is none */
};

struct uc_finding {
	const struct uc_rule *rule;
	enum uc_severity severity;
	uint32_t pid;
	char headline[200];		/* the SUMMARY line */
	char title[256];		/* the header, after "uringcheck: NAME: " */
	json_object *evidence;		/* named values; owned */
	struct uc_finding_stack stacks[UC_FINDING_STACKS];
	int nstacks;
	char *body;			/* text lines between header and SUMMARY */
	uint64_t key;			/* dedup: same problem again, 0: unique */
	bool spans_loss;		/* confirmed although events were lost */
};

void finding_init(struct uc_finding *f, const struct uc_rule *rule,
		  enum uc_severity sev, uint32_t pid);
void finding_stack(struct uc_finding *f, const char *role, uint64_t id,
		   const char *no_stack);
void finding_free(struct uc_finding *f);

/* Evidence values, named. */
void ev_add_u64(struct uc_finding *f, const char *name, uint64_t v);
void ev_add_int(struct uc_finding *f, const char *name, int64_t v);
void ev_add_hex(struct uc_finding *f, const char *name, uint64_t v);	/* "0x..." */
void ev_add_str(struct uc_finding *f, const char *name, const char *v);
void ev_add_double(struct uc_finding *f, const char *name, double v);
void ev_add(struct uc_finding *f, const char *name, json_object *v);	/* taken */
json_object *jhex(uint64_t v);

#endif
