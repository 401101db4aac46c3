/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The check mode's hazard kinds, generated from one table (kinds.def):
 * the enum the rules and builders use, the kinds' rules, and their
 * registration with reports/, which knows kinds only as the rules it was
 * given (reports/kind_registry.h).
 */
#ifndef UC_KINDS_H
#define UC_KINDS_H

#include "kind_registry.h"

enum uc_kind {
#define KIND(e, ...) UC_KIND_##e,
#include "kinds.def"
	UC_KIND__COUNT,
};

/* The kinds' rules, indexed by enum uc_kind. */
extern const struct uc_rule uc_kind_rules[UC_KIND__COUNT];

/*
 * Gives reports/ the kinds and their old names. First thing in main():
 * options (--fail-on, --hazards, --list-kinds, --help, --version) and
 * suppression files name kinds, and reports count them.
 */
void kinds_register(void);

#endif
