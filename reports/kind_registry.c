// SPDX-License-Identifier: GPL-2.0
/*
 * The registered hazard kinds (kind_registry.h): lookup by name, masks,
 * parsing of kind lists, and the --list-kinds table.
 */
#include "kind_registry.h"

#include <stdlib.h>
#include <string.h>

static const struct uc_rule *kinds;
static int nkinds;
static const struct uc_kind_alias *aliases;
static int naliases;

void uc_kinds_register(const struct uc_rule *rules, int n,
		       const struct uc_kind_alias *al, int nal)
{
	if (n < 0 || n > UC_MAX_KINDS) {
		fprintf(stderr, "uringcheck: %d hazard kinds, at most %d\n", n, UC_MAX_KINDS);
		abort();
	}
	for (int k = 0; k < n; k++)
		if (rules[k].kind != k) {
			fprintf(stderr, "uringcheck: kind %s registered at %d, says %d\n",
				rules[k].name, k, rules[k].kind);
			abort();
		}
	kinds = rules;
	nkinds = n;
	aliases = al;
	naliases = nal;
}

int uc_kinds_count(void)
{
	return nkinds;
}

const struct uc_rule *uc_kind_rule(int k)
{
	return k >= 0 && k < nkinds ? &kinds[k] : NULL;
}

const char *uc_kind_name(int k)
{
	return k >= 0 && k < nkinds ? kinds[k].name : "unknown";
}

int uc_kind_lookup(const char *name)
{
	for (int k = 0; k < nkinds; k++)
		if (!strcmp(name, kinds[k].name))
			return k;
	for (int i = 0; i < naliases; i++)
		if (!strcmp(name, aliases[i].name))
			return aliases[i].kind;
	return -1;
}

unsigned int uc_kinds_all(void)
{
	return nkinds == 32 ? ~0u : UC_KIND_BIT(nkinds) - 1;
}

unsigned int uc_kinds_fail_default(void)
{
	unsigned int m = 0;

	for (int k = 0; k < nkinds; k++)
		if (kinds[k].severity == UC_SEV_ERROR)
			m |= UC_KIND_BIT(k);
	return m;
}

void uc_kinds_print(FILE *out)
{
	for (int k = 0; k < nkinds; k++)
		fprintf(out, " %s", kinds[k].name);
}

int uc_kinds_parse(const char *list, unsigned int *mask, const char *option)
{
	char *copy = strdup(list), *save = NULL, *tok;
	unsigned int m = 0;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int k;

		if (!strcmp(tok, "all")) {
			m = uc_kinds_all();
			continue;
		}
		if (!strcmp(tok, "none"))
			continue;
		k = uc_kind_lookup(tok);
		if (k < 0) {
			fprintf(stderr, "uringcheck: %s: unknown kind '%s'; valid kinds:",
				option, tok);
			uc_kinds_print(stderr);
			fprintf(stderr, " (or all, none)\n");
			free(copy);
			return -1;
		}
		m |= UC_KIND_BIT(k);
	}
	free(copy);
	*mask = m;
	return 0;
}

void uc_kinds_list(FILE *out)
{
	for (int k = 0; k < nkinds; k++) {
		bool error = kinds[k].severity == UC_SEV_ERROR;

		fprintf(out, "%s\t%s\t%s\t%s\n", kinds[k].name, error ? "error" : "warning",
			error ? "yes" : "no", kinds[k].short_desc ? kinds[k].short_desc : "");
	}
}

void uc_kinds_names(char *buf, size_t len, enum uc_severity sev)
{
	const char *sep = "";

	for (int k = 0; k < uc_kinds_count(); k++) {
		const struct uc_rule *r = uc_kind_rule(k);
		size_t used = strlen(buf);

		if (r->severity != sev)
			continue;
		snprintf(buf + used, len - used, "%s%s", sep, r->name);
		sep = ", ";
	}
}
