/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UC_OPTIONS_H
#define UC_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "filter.h"

#define OPT_T_FLAG int
#define OPT_T_INT long
#define OPT_T_STR const char *
#define UC_MAX_LIST 16
struct uc_optlist {
	const char *v[UC_MAX_LIST];
	int n;
};
#define OPT_T_LIST struct uc_optlist

/* --fail-on=doctor:SEV, in the doctor's severity names */
#define UC_FAIL_DOCTOR_NOTE	1
#define UC_FAIL_DOCTOR_WARNING	2

struct uc_options {
#define OPT(kind, field, name, def, meta, help) OPT_T_##kind field;
#include "options.def"
#undef OPT
	int verbose;			/* -v, repeatable */
	unsigned int fail_mask;		/* parsed fail_on */
	unsigned int hazard_mask;	/* parsed hazards */
	int fail_doctor;		/* --fail-on=doctor:SEV: 0 off, UC_FAIL_DOCTOR_* */
	struct uc_filter filt;		/* parsed filter (-e) */
	char **target_argv;		/* NULL-terminated */
	char **env_v;			/* URINGCHECK_OPTIONS' words, owned */
	int env_n;
};

enum opt_result {
	OPT_RUN,			/* run target_argv */
	OPT_EXIT_OK,			/* --help / --list-kinds / --list-ops printed */
	OPT_EXIT_VERSION,		/* --version asked: the caller prints it */
	OPT_EXIT_USAGE,			/* error printed */
};

/*
 * What the parser asks of the hazard kinds. They live above lib/ (the
 * registry in reports/, filled by the check mode's table), so the
 * command hands them in (run/main.c) before parsing: lib/ knows no kind.
 */
struct uc_options_kinds {
	/* Appends "a, b, c" to @buf: the kinds that are errors by default
	 * (@errors) or warnings, in their table's order. */
	void (*names)(char *buf, size_t len, bool errors);
	void (*list)(FILE *out);		/* --list-kinds */
	unsigned int (*fail_default)(void);	/* --fail-on's default mask */
	/* "a,b", "all" or "none" into a mask; -1 with a message naming
	 * @option on an unknown name */
	int (*parse)(const char *list, unsigned int *mask, const char *option);
};
void options_set_kinds(const struct uc_options_kinds *k);

void options_defaults(struct uc_options *o);
/*
 * URINGCHECK_OPTIONS (space-separated, same syntax) is applied first, then
 * the command line, so the command line wins.
 */
enum opt_result options_parse(struct uc_options *o, int argc, char **argv);
void options_help(FILE *out);
/* Frees what options_parse allocated (the option values given in
 * URINGCHECK_OPTIONS point into it). */
void options_free(struct uc_options *o);

#endif
