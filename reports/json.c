// SPDX-License-Identifier: GPL-2.0
#include "json.h"

#include <stdlib.h>

void json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void json_hex(FILE *f, uint64_t v)
{
	fprintf(f, "\"0x%llx\"", (unsigned long long)v);
}

void json_add(struct uc_json *j, uint64_t key, uint32_t kind, char *text)
{
	struct uc_json_finding *n = realloc(j->v, (j->n + 1) * sizeof(*j->v));

	if (!n) {
		free(text);
		return;
	}
	j->v = n;
	j->v[j->n++] = (struct uc_json_finding){ .key = key, .kind = kind, .text = text };
}

void json_free(struct uc_json *j)
{
	for (size_t i = 0; i < j->n; i++)
		free(j->v[i].text);
	free(j->v);
	j->v = NULL;
	j->n = 0;
}
