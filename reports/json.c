// SPDX-License-Identifier: GPL-2.0
#include "json.h"

#include <math.h>
#include <stdlib.h>

json_object *uc_json_hex(uint64_t v)
{
	char b[24];

	snprintf(b, sizeof(b), "0x%llx", (unsigned long long)v);
	return json_object_new_string(b);
}

json_object *uc_json_range(uint64_t start, uint64_t end)
{
	json_object *a = json_object_new_array_ext(2);

	json_object_array_add(a, uc_json_hex(start));
	json_object_array_add(a, uc_json_hex(end));
	return a;
}

json_object *uc_json_string(const char *s)
{
	return s ? json_object_new_string(s) : NULL;	/* NULL is json-c's null */
}

json_object *uc_json_double(double v)
{
	char b[32];

	if (!isfinite(v))
		return NULL;
	/* 15 digits: exact for any decimal a person would write. */
	snprintf(b, sizeof(b), "%.15g", v);
	return json_object_new_double_s(v, b);
}

void uc_json_list_add(struct uc_json_list *l, uint64_t key, json_object *obj)
{
	struct uc_json_item *n = realloc(l->v, (l->n + 1) * sizeof(*l->v));

	if (!n) {
		json_object_put(obj);
		return;
	}
	l->v = n;
	l->v[l->n++] = (struct uc_json_item){ .key = key, .obj = obj };
}

void uc_json_list_free(struct uc_json_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		json_object_put(l->v[i].obj);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

void uc_json_write(FILE *out, json_object *doc)
{
	/* Pretty: a person can read it and grep a field; no "\/" in paths. */
	fputs(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
					     JSON_C_TO_STRING_NOSLASHESCAPE), out);
	fputc('\n', out);
	json_object_put(doc);
}
