/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UC_OPTIONS_H
#define UC_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#define OPT_T_FLAG int
#define OPT_T_INT long
#define OPT_T_STR const char *
#define UC_MAX_LIST 16
struct uc_optlist {
	const char *v[UC_MAX_LIST];
	int n;
};
#define OPT_T_LIST struct uc_optlist

struct uc_options {
#define OPT(kind, field, name, def, meta, help) OPT_T_##kind field;
#include "options.def"
#undef OPT
	int verbose;			/* -v, repeatable */
	unsigned int fail_mask;		/* parsed fail_on */
	unsigned int hazard_mask;	/* parsed hazards */
	char **target_argv;		/* NULL-terminated */
	char **env_v;			/* URINGCHECK_OPTIONS' words, owned */
	int env_n;
};

enum opt_result {
	OPT_RUN,			/* run target_argv */
	OPT_EXIT_OK,			/* --help / --version / --list-kinds printed */
	OPT_EXIT_USAGE,			/* error printed */
};

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
