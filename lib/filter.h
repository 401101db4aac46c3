/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -e/--filter EXPR: which opcodes the profile's tables show (the text
 * report, -c and the --diff table; docs/profile.md). A display filter:
 * what is counted, judged by the doctor and written as JSON is unchanged,
 * and the report says how many opcodes it hid.
 *
 *   op=READ,WRITE   these opcodes (names as --list-ops spells them)
 *   punt            opcodes with at least one request run in io-wq
 *   error           opcodes with at least one request that failed
 *
 * Parsed with the options (lib/options.c), so a bad expression is a
 * usage error before anything runs.
 */
#ifndef UC_FILTER_H
#define UC_FILTER_H

#include <stdbool.h>
#include <stdint.h>

enum uc_filter_what { UC_FILTER_NONE, UC_FILTER_OPS, UC_FILTER_PUNT, UC_FILTER_ERROR };

struct uc_filter {
	enum uc_filter_what what;
	uint64_t ops[4];		/* op=: a bit per opcode number */
};

/* 0, or -1 after a message naming @option ("-e/--filter"). */
int uc_filter_parse(const char *expr, struct uc_filter *f, const char *option);
/* Whether an opcode's row is shown: its number, how many of its requests
 * were punted and how many failed. */
bool uc_filter_shows(const struct uc_filter *f, unsigned op, uint64_t punted,
		     uint64_t errors);

#endif
