// SPDX-License-Identifier: GPL-2.0
/* Skipped hook runs per program (hook_misses.h). */
#include "hook_misses.h"

#include <stdio.h>
#include <string.h>

void hook_misses_add(struct uc_hook_misses *m, const char *name, uint64_t runs)
{
	size_t i;

	if (!m || !name)
		return;
	for (i = 0; i < m->n && strcmp(m->v[i].name, name); i++)
		;
	if (i == m->n) {
		if (m->n == UC_HOOK_MISSES_MAX)
			return;
		m->v[m->n].name = name;
		m->v[m->n++].runs = 0;
	}
	m->v[i].runs += runs;
}

void hook_misses_text(const struct uc_hook_misses *base, const struct uc_hook_misses *end,
		      char *buf, size_t cap)
{
	struct uc_hook_misses d = { 0 };
	size_t len = 0;

	for (size_t i = 0; i < end->n; i++) {
		uint64_t before = 0;

		for (size_t j = 0; j < base->n; j++)
			if (!strcmp(base->v[j].name, end->v[i].name))
				before = base->v[j].runs;
		if (end->v[i].runs > before)
			hook_misses_add(&d, end->v[i].name, end->v[i].runs - before);
	}
	if (cap)
		buf[0] = 0;
	for (size_t k = 0; k < d.n; k++) {
		size_t most = k;

		for (size_t i = k + 1; i < d.n; i++)
			if (d.v[i].runs > d.v[most].runs)
				most = i;
		if (len < cap)
			len += (size_t)snprintf(buf + len, cap - len, "%s%s %llu", k ? ", " : "",
						d.v[most].name, (unsigned long long)d.v[most].runs);
		d.v[most] = d.v[k];
	}
}
