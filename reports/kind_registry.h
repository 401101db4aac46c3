/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hazard kinds as reports/ sees them: rules (struct uc_rule) that a
 * mode registers once at start-up, numbered 0..n-1 by their .kind. What
 * sets a kind apart from other rules: it is counted on its own, it is a
 * bit of the --hazards and --fail-on masks, it decides the exit status,
 * and its SARIF rule is listed first. reports/ knows none of them by
 * name; the check mode's are the table checker/kinds/kinds.def.
 *
 * A kind's rule severity is its default: UC_SEV_ERROR fails the run
 * (and prints ERROR) unless --fail-on says otherwise, UC_SEV_WARNING
 * does not. In a run, --fail-on decides.
 *
 * The registry is global, not part of struct uc_report: the option
 * parser and the suppression files need the names before a report
 * exists.
 */
#ifndef UC_KIND_REGISTRY_H
#define UC_KIND_REGISTRY_H

#include <stdio.h>

#include "finding.h"

/* A kind is a bit of an unsigned int mask. */
#define UC_MAX_KINDS	32
#define UC_KIND_BIT(k)	(1u << (k))

/* A name a kind was once known by, still accepted. */
struct uc_kind_alias {
	const char *name;
	int kind;
};

/*
 * Registers @n kinds, @rules[k].kind == k, and old names for them; the
 * arrays must outlive the program. Once, before anything names a kind.
 * A table that breaks these rules aborts: it is a programming error.
 */
void uc_kinds_register(const struct uc_rule *rules, int n,
		       const struct uc_kind_alias *aliases, int naliases);
int uc_kinds_count(void);
/* Kind @k's rule; NULL if there is no such kind. */
const struct uc_rule *uc_kind_rule(int k);
/* Kind @k's name, "unknown" if there is none. */
const char *uc_kind_name(int k);
/* The kind named @name (or an old name for it); -1 if none. */
int uc_kind_lookup(const char *name);
/* Every kind, as a mask. */
unsigned int uc_kinds_all(void);
/* The kinds that fail a run unless --fail-on says otherwise: the errors. */
unsigned int uc_kinds_fail_default(void);
/* Appends "a, b, c" to @buf: the kinds whose default is @sev, in table
 * order (--help's sentence). */
void uc_kinds_names(char *buf, size_t len, enum uc_severity sev);
/* Lists the valid kind names on @out, each after a space. */
void uc_kinds_print(FILE *out);
/* Parses "overlap,dropped", "all" or "none" into a kind mask; -1 and a
 * message naming the valid kinds on an unknown name. */
int uc_kinds_parse(const char *list, unsigned int *mask, const char *option);
/*
 * --list-kinds: one line per kind, in table order, tab-separated and
 * stable for scripts:
 *     NAME  error|warning  FAILS-BY-DEFAULT (yes|no)  SHORT DESCRIPTION
 */
void uc_kinds_list(FILE *out);

#endif
