// SPDX-License-Identifier: GPL-2.0
#include "suppressions.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "xalloc.h"

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

/* Errors name the file and line, never the line's text (the file may
 * hold more than suppressions). */
static int bad(const char *path, int line, const char *why)
{
	fprintf(stderr, "uringcheck: %s:%d: %s\n", path, line, why);
	return -1;
}

/* A glob fnmatch(3) takes as meant: every '[' closed by a ']', no
 * trailing '\'. (An unclosed '[' would only ever match itself.) */
static bool glob_ok(const char *g)
{
	for (const char *c = g; *c; c++) {
		if (*c == '\\') {
			if (!*++c)
				return false;
		} else if (*c == '[') {
			c++;
			if (*c == '!' || *c == '^')
				c++;
			if (*c == ']')
				c++;
			for (;; c++) {
				if (!*c)
					return false;
				if (*c == ']')
					break;
				if (*c == '\\' && c[1]) {
					c++;
				} else if (*c == '[' && (c[1] == ':' || c[1] == '.' || c[1] == '=')) {
					char end = c[1];
					const char *close = c + 2;

					while (*close && !(close[0] == end && close[1] == ']'))
						close++;
					if (!*close)
						return false;
					c = close + 1;
				}
			}
		}
	}
	return true;
}

/* A kind as typed, if it is short and plain enough to be repeated. */
static bool plain_word(const char *w)
{
	size_t n = strlen(w);

	if (n == 0 || n > 64)
		return false;
	for (; *w; w++)
		if (!isalnum((unsigned char)*w) && *w != '-' && *w != '_')
			return false;
	return true;
}

static void supp_entry_free(struct uc_supp *e)
{
	for (int k = 0; k < e->npats; k++)
		free(e->pats[k].glob);
	free(e->pats);
	free(e->name);
	free(e->kind);
	free(e->where);
	memset(e, 0, sizeof(*e));
}

static int parse(struct uc_suppressions *s, const char *path, char *text, size_t len)
{
	struct uc_supp cur = { 0 };
	int line = 0, state = 0, start = 0;	/* 0 outside, 1 name, 2 kind, 3 frames */
	char *next, *last = NULL;

	for (char *l = text; l < text + len; l = next) {
		char *nl = memchr(l, '\n', (size_t)(text + len - l)), *p;
		size_t n = (size_t)((nl ? nl : text + len) - l);

		next = nl ? nl + 1 : text + len;
		line++;
		if (memchr(l, 0, n)) {
			bad(path, line, "a NUL byte: not a suppressions file");
			goto fail;
		}
		if (nl) {
			*nl = 0;
		} else {
			/* a last line without '\n': nothing may be read or
			 * written past @len, so it is terminated in a copy */
			last = xmalloc(n + 1);
			memcpy(last, l, n);
			last[n] = 0;
			l = last;
		}
		p = trim(l);
		if (!*p || *p == '#')
			continue;
		if (state == 0) {
			if (strcmp(p, "{")) {
				bad(path, line, "expected '{' to start a suppression");
				goto fail;
			}
			start = line;
			state = 1;
		} else if (!strcmp(p, "}")) {
			char where[64];

			if (state < 3) {
				bad(path, line, "suppression needs a name and a "
				    "'uringcheck:KIND' line");
				goto fail;
			}
			snprintf(where, sizeof(where), ":%d", start);
			cur.where = xmalloc(strlen(path) + strlen(where) + 1);
			strcpy(cur.where, path);
			strcat(cur.where, where);
			s->list = xrealloc(s->list, (s->n + 1) * sizeof(*s->list));
			s->list[s->n++] = cur;
			memset(&cur, 0, sizeof(cur));
			state = 0;
		} else if (state == 1) {
			if (!strcmp(p, "{")) {
				bad(path, line, "'{' inside a suppression (a '}' missing?)");
				goto fail;
			}
			cur.name = xstrdup(p);
			state = 2;
		} else if (state == 2) {
			int kind;

			if (strncmp(p, "uringcheck:", 11)) {
				bad(path, line, "expected 'uringcheck:KIND'");
				goto fail;
			}
			kind = uc_kind_lookup(p + 11);
			if (kind < 0) {
				if (plain_word(p + 11))
					fprintf(stderr, "uringcheck: %s:%d: unknown kind '%s'; "
						"valid kinds:", path, line, p + 11);
				else
					fprintf(stderr, "uringcheck: %s:%d: unknown kind; "
						"valid kinds:", path, line);
				uc_kinds_print(stderr);
				fputc('\n', stderr);
				goto fail;
			}
			cur.kind = xstrdup(uc_kind_name(kind));
			state = 3;
		} else {
			struct pattern pt = { PAT_ANY, NULL };

			if (!strcmp(p, "{")) {
				bad(path, line, "'{' inside a suppression (a '}' missing?)");
				goto fail;
			} else if (!strncmp(p, "fun:", 4)) {
				pt.kind = PAT_FUN;
			} else if (!strncmp(p, "src:", 4)) {
				pt.kind = PAT_SRC;
			} else if (!strncmp(p, "obj:", 4)) {
				pt.kind = PAT_OBJ;
			} else if (strcmp(p, "...")) {
				bad(path, line, "expected fun:, src:, obj: or ...");
				goto fail;
			}
			if (pt.kind != PAT_ANY) {
				char *g = trim(p + 4);

				if (!*g || !glob_ok(g)) {
					bad(path, line, !*g ? "an empty pattern" :
					    "not a valid glob (an unclosed '[' or a "
					    "trailing '\\')");
					goto fail;
				}
				pt.glob = xstrdup(g);
			}
			cur.pats = xrealloc(cur.pats, (cur.npats + 1) * sizeof(*cur.pats));
			cur.pats[cur.npats++] = pt;
		}
	}
	if (state) {
		bad(path, line, "unterminated suppression (missing '}')");
		goto fail;
	}
	free(last);
	return 0;
fail:
	free(last);
	supp_entry_free(&cur);
	return -1;
}

int supp_parse(struct uc_suppressions *s, const char *path, char *text, size_t len)
{
	return parse(s, path, text, len);
}

void supp_free(struct uc_suppressions *s)
{
	for (size_t i = 0; i < s->n; i++)
		supp_entry_free(&s->list[i]);
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

/*
 * Whether the patterns match a prefix of the frames, "..." matching any
 * run of frames (none included). Dynamic programming over (pattern,
 * frame) pairs, one row per pattern from the last: ok[fi] is whether
 * patterns pi.. match frames fi..; O(patterns x frames) glob matches,
 * however many "..." follow each other.
 */
static bool match(const struct pattern *p, int np, const struct uc_supp_frame *f, int nf)
{
	bool small[2][64], *next, *cur, *t, r;

	if (nf < 0)
		nf = 0;
	if (nf < 64) {
		next = small[0];
		cur = small[1];
	} else {
		next = xcalloc((size_t)nf + 1, sizeof(bool));
		cur = xcalloc((size_t)nf + 1, sizeof(bool));
	}
	for (int fi = 0; fi <= nf; fi++)
		next[fi] = true;	/* no patterns left: a prefix is enough */
	for (int pi = np - 1; pi >= 0; pi--) {
		if (p[pi].kind == PAT_ANY) {
			cur[nf] = next[nf];
			for (int fi = nf - 1; fi >= 0; fi--)
				cur[fi] = next[fi] || cur[fi + 1];
		} else {
			cur[nf] = false;
			for (int fi = nf - 1; fi >= 0; fi--)
				cur[fi] = next[fi + 1] && frame_ok(&p[pi], &f[fi]);
		}
		t = next;
		next = cur;
		cur = t;
	}
	r = next[0];
	if (nf >= 64) {
		free(next);
		free(cur);
	}
	return r;
}

int supp_match(struct uc_suppressions *s, const char *kind_name,
	       const struct uc_supp_frame *frames, int n)
{
	for (size_t i = 0; i < s->n; i++) {
		struct uc_supp *e = &s->list[i];

		if (strcmp(e->kind, kind_name))
			continue;
		if (match(e->pats, e->npats, frames, n)) {
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
