// SPDX-License-Identifier: GPL-2.0
#include "json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* The length of the well-formed UTF-8 sequence at @s (RFC 3629: no
 * overlong forms, no surrogates, at most U+10FFFF), 0 if there is none. */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	unsigned int c = s[0], n, min, cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, min = 0x80, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, min = 0x800, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, min = 0x10000, cp = c & 0x07;
	else
		return 0;
	if (left < n)
		return 0;
	for (unsigned int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * json-c writes a string's bytes as they are, so a program name or a path
 * that is not UTF-8 would make the document invalid (RFC 8259). Those
 * bytes can only be inside strings (the rest is ASCII): each byte that is
 * not part of a well-formed UTF-8 sequence is written as \u00XX, its
 * Latin-1 value (docs/json.md). json-c never writes \u0080-\u00ff for a
 * valid character, so these escapes mark the raw bytes unambiguously.
 */
static void write_utf8_clean(FILE *out, const char *text)
{
	const unsigned char *s = (const unsigned char *)text, *run = s;
	size_t left = strlen(text);

	while (left) {
		size_t n = utf8_len(s, left);

		if (n) {
			s += n;
			left -= n;
			continue;
		}
		fwrite(run, 1, (size_t)(s - run), out);
		fprintf(out, "\\u%04x", *s);
		s++;
		left--;
		run = s;
	}
	fwrite(run, 1, (size_t)(s - run), out);
}

void uc_json_write(FILE *out, json_object *doc)
{
	/* Pretty: a person can read it and grep a field; no "\/" in paths. */
	write_utf8_clean(out, json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
							     JSON_C_TO_STRING_NOSLASHESCAPE));
	fputc('\n', out);
	json_object_put(doc);
}
