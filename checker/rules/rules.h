/* SPDX-License-Identifier: GPL-2.0 */
/* The check mode's rules, in the order their hooks run (rules.c). */
#ifndef UC_RULES_H
#define UC_RULES_H

#include "rule.h"

extern const struct uc_check_rule *const uc_check_rules[];
extern const unsigned int uc_check_rules_count;

#endif
