/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Machine-readable output (--json=FILE), schema in docs/json.md. Each
 * unique finding is one object; repeats only raise its "count". The file
 * is written once, at the end of the run.
 */
#ifndef UC_JSON_H
#define UC_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define UC_JSON_SCHEMA 2

/* Building one finding: open_memstream text, closed by the report code. */
void json_str(FILE *f, const char *s);		/* a quoted, escaped string */
void json_hex(FILE *f, uint64_t v);		/* "0x..." */

struct uc_json_finding {
	uint64_t key;			/* dedup key (0: unique) */
	uint32_t kind;
	char *text;			/* the object minus "count" and "}" */
	bool spans_loss;		/* SARIF: its evidence spans lost events */
};

struct uc_json {
	struct uc_json_finding *v;
	size_t n;
};

void json_add(struct uc_json *j, uint64_t key, uint32_t kind, char *text);
void json_free(struct uc_json *j);

#endif
