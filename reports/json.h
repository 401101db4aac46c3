/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON values for --json (docs/json.md) and --sarif (docs/sarif.md).
 *
 * Everything is built as json-c objects and serialized by json-c: no
 * hand-written escaping or punctuation. Why json-c: it writes 64-bit
 * integers as they are (json_object_new_uint64 and new_int64, for our
 * counts and nanoseconds), its objects are reference-counted, so a
 * finding's evidence can be shared by the finding that built it and the
 * document that prints it, it keeps an object's keys in insertion order
 * (the documents read in a stable order), and it is in Debian main and
 * already on most systems as a dependency of common packages. Jansson
 * would have done equally well; nothing here depends on a json-c
 * feature it lacks, apart from the spelling.
 *
 * Each unique finding is one object, kept until the end of the run;
 * repeats only raise its "count", added when the file is written.
 */
#ifndef UC_JSON_H
#define UC_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#define UC_JSON_SCHEMA 2

/* "0x..." strings: addresses and user_data (JSON numbers lose 64 bits). */
json_object *uc_json_hex(uint64_t v);
/* ["0x<start>", "0x<end>"] */
json_object *uc_json_range(uint64_t start, uint64_t end);
/* A string, or null for NULL. */
json_object *uc_json_string(const char *s);
/* A number written short ("0.97"; json-c's own %.17g would write
 * 0.96999999999999997); null if not finite. */
json_object *uc_json_double(double v);

/* Objects kept for the end of the run, each under its dedup key. */
struct uc_json_item {
	uint64_t key;			/* 0: unique */
	json_object *obj;
};

struct uc_json_list {
	struct uc_json_item *v;
	size_t n;
};

/* Keeps @obj (the list takes the reference). */
void uc_json_list_add(struct uc_json_list *l, uint64_t key, json_object *obj);
void uc_json_list_free(struct uc_json_list *l);

/* Writes @doc to @out (indented, one value per line, '/' unescaped) and
 * releases it. */
void uc_json_write(FILE *out, json_object *doc);

#endif
