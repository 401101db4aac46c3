// SPDX-License-Identifier: GPL-2.0
#include "suppressions.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

enum pat_kind { PAT_FUN, PAT_SRC, PAT_OBJ, PAT_ANY };

struct pattern {
	enum pat_kind kind;
	char *glob;
};

struct uc_supp {
	char *name;
	char *kind;			/* "overlap", ... */
	struct pattern *pats;
	int npats;
	uint64_t hits;
	char *where;			/* "file:line" of the block */
};

static char *trim(char *p)
{
	char *e;

	while (isspace((unsigned char)*p))
		p++;
	e = p + strlen(p);
	while (e > p && isspace((unsigned char)e[-1]))
		*--e = 0;
	return p;
}

static int bad(const char *path, int line, const char *why, const char *what)
{
	fprintf(stderr, "uringcheck: %s:%d: %s%s%s%s\n", path, line, why,
		what ? " '" : "", what ? what : "", what ? "'" : "");
	return -1;
}

int supp_load(struct uc_suppressions *s, const char *path)
{
	FILE *f = fopen(path, "re");
	char buf[1024], where[600];
	struct uc_supp cur = { 0 };
	int line = 0, state = 0, start = 0;	/* 0 outside, 1 name, 2 kind, 3 frames */

	if (!f) {
		fprintf(stderr, "uringcheck: cannot read suppressions '%s': %m\n", path);
		return -1;
	}
	while (fgets(buf, sizeof(buf), f)) {
		char *p = trim(buf);

		line++;
		if (!*p || *p == '#')
			continue;
		if (state == 0) {
			if (strcmp(p, "{")) {
				fclose(f);
				return bad(path, line, "expected '{' to start a suppression, got", p);
			}
			memset(&cur, 0, sizeof(cur));
			start = line;
			state = 1;
		} else if (!strcmp(p, "}")) {
			if (state < 3 || (state == 3 && !cur.kind)) {
				fclose(f);
				return bad(path, line, "suppression needs a name and a "
					   "'uringcheck:KIND' line", NULL);
			}
			snprintf(where, sizeof(where), "%s:%d", path, start);
			cur.where = strdup(where);
			s->list = realloc(s->list, (s->n + 1) * sizeof(*s->list));
			s->list[s->n++] = cur;
			state = 0;
		} else if (state == 1) {
			cur.name = strdup(p);
			state = 2;
		} else if (state == 2) {
			if (strncmp(p, "uringcheck:", 11)) {
				fclose(f);
				return bad(path, line, "expected 'uringcheck:KIND', got", p);
			}
			int kind = uc_kind_lookup(p + 11);

			if (kind < 0) {
				fprintf(stderr, "uringcheck: %s:%d: unknown kind '%s'; valid "
					"kinds:", path, line, p + 11);
				uc_kinds_print(stderr);
				fputc('\n', stderr);
				fclose(f);
				return -1;
			}
			cur.kind = strdup(uc_kind_name(kind));
			state = 3;
		} else {
			struct pattern pt;

			if (!strcmp(p, "..."))
				pt = (struct pattern){ PAT_ANY, NULL };
			else if (!strncmp(p, "fun:", 4))
				pt = (struct pattern){ PAT_FUN, strdup(trim(p + 4)) };
			else if (!strncmp(p, "src:", 4))
				pt = (struct pattern){ PAT_SRC, strdup(trim(p + 4)) };
			else if (!strncmp(p, "obj:", 4))
				pt = (struct pattern){ PAT_OBJ, strdup(trim(p + 4)) };
			else {
				fclose(f);
				return bad(path, line, "expected fun:, src:, obj: or ..., got", p);
			}
			cur.pats = realloc(cur.pats, (cur.npats + 1) * sizeof(*cur.pats));
			cur.pats[cur.npats++] = pt;
		}
	}
	fclose(f);
	if (state)
		return bad(path, line, "unterminated suppression (missing '}')", NULL);
	return 0;
}

void supp_free(struct uc_suppressions *s)
{
	for (size_t i = 0; i < s->n; i++) {
		for (int k = 0; k < s->list[i].npats; k++)
			free(s->list[i].pats[k].glob);
		free(s->list[i].pats);
		free(s->list[i].name);
		free(s->list[i].kind);
		free(s->list[i].where);
	}
	free(s->list);
	s->list = NULL;
	s->n = 0;
}

static bool frame_ok(const struct pattern *p, const struct uc_supp_frame *f)
{
	const char *v = p->kind == PAT_FUN ? f->function :
			p->kind == PAT_SRC ? f->file : f->module;

	return v && !fnmatch(p->glob, v, 0);
}

/* Patterns [pi..) against frames [fi..): "..." matches any run. */
static bool match_from(const struct pattern *p, int np, int pi,
		       const struct uc_supp_frame *f, int nf, int fi)
{
	if (pi == np)
		return true;	/* a prefix of the stack is enough */
	if (p[pi].kind == PAT_ANY) {
		for (int k = fi; k <= nf; k++)
			if (match_from(p, np, pi + 1, f, nf, k))
				return true;
		return false;
	}
	return fi < nf && frame_ok(&p[pi], &f[fi]) &&
	       match_from(p, np, pi + 1, f, nf, fi + 1);
}

int supp_match(struct uc_suppressions *s, const char *kind_name,
	       const struct uc_supp_frame *frames, int n)
{
	for (size_t i = 0; i < s->n; i++) {
		struct uc_supp *e = &s->list[i];

		if (strcmp(e->kind, kind_name))
			continue;
		if (match_from(e->pats, e->npats, 0, frames, n, 0)) {
			e->hits++;
			return (int)i;
		}
	}
	return -1;
}

void supp_print_used(const struct uc_suppressions *s, FILE *out, uint32_t pid)
{
	bool any = false;

	for (size_t i = 0; i < s->n; i++) {
		if (!s->list[i].hits)
			continue;
		if (!any)
			fprintf(out, "==%u==uringcheck: used suppressions:\n", pid);
		any = true;
		fprintf(out, "  %llu %s (%s)\n", (unsigned long long)s->list[i].hits,
			s->list[i].name, s->list[i].where);
	}
}

void supp_print_entry(FILE *out, const char *kind_name,
		      const struct uc_supp_frame *frames, int n)
{
	fprintf(out, "{\n   <insert_a_suppression_name_here>\n   uringcheck:%s\n",
		kind_name);
	for (int i = 0; i < n; i++) {
		if (frames[i].function)
			fprintf(out, "   fun:%s\n", frames[i].function);
		else if (frames[i].module)
			fprintf(out, "   obj:%s\n", frames[i].module);
		else
			fprintf(out, "   ...\n");
	}
	fprintf(out, "}\n");
}

void supp_count_hit(struct uc_suppressions *s, int i)
{
	if (i >= 0 && (size_t)i < s->n)
		s->list[i].hits++;
}
