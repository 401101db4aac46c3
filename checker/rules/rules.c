// SPDX-License-Identifier: GPL-2.0
/*
 * The table of the check mode's rules, one line each: NAME is the rule's
 * file (NAME.c) and its `const struct uc_check_rule uc_rule_NAME`. Hooks run in
 * this order; where two rules judge one event, the order is the reports'.
 */
#include "rules.h"

#define UC_RULES(X)							\
	X(user_data)		/* user-data-reuse */			\
	X(overlap)		/* overlap */				\
	X(provided_buffers)	/* pbuf-reprovided */			\
	X(calls)		/* munmap-inflight, bufreg-lifetime,	\
				 * bufreg-unmapped, sync-overlap */	\
	X(heap_release)		/* free-inflight */			\
	X(stack_frames)		/* stack-inflight */			\
	X(teardown)		/* left-in-flight, dropped */		\
	X(reap_lag)		/* reap-lag */

#define DECLARE(name) extern const struct uc_check_rule uc_rule_##name;
#define ENTRY(name) &uc_rule_##name,

UC_RULES(DECLARE)

const struct uc_check_rule *const uc_check_rules[] = { UC_RULES(ENTRY) };
const unsigned int uc_check_rules_count = sizeof(uc_check_rules) / sizeof(uc_check_rules[0]);
