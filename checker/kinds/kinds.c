// SPDX-License-Identifier: GPL-2.0
/*
 * The hazard kinds' rules, from kinds.def, and their registration.
 */
#include "kinds.h"

_Static_assert(UC_KIND__COUNT <= UC_MAX_KINDS,
	       "a kind is a bit of the --hazards and --fail-on masks");

const struct uc_rule uc_kind_rules[UC_KIND__COUNT] = {
#define KIND(e, name_, sev, sarif_id_, security, short_, full, help_, fix_) \
	[UC_KIND_##e] = { .name = name_, .sarif_id = sarif_id_, \
			  .short_desc = short_, .full_desc = full, .help = help_, \
			  .fix = fix_, .security_severity = security, \
			  .severity = UC_SEV_##sev, .kind = UC_KIND_##e },
#include "kinds.def"
};

static const struct uc_kind_alias old_names[] = {
#define KIND_OLD_NAME(e, name_) { .name = name_, .kind = UC_KIND_##e },
#include "kinds.def"
};

void kinds_register(void)
{
	uc_kinds_register(uc_kind_rules, UC_KIND__COUNT, old_names,
			  sizeof(old_names) / sizeof(old_names[0]));
}
