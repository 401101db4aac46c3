// SPDX-License-Identifier: GPL-2.0
/* Building a finding (reports/finding.h): the words and the evidence. */
#define _GNU_SOURCE
#include "finding.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void uc_finding_init(struct uc_finding *f, const struct uc_rule *rule, uint32_t pid)
{
	*f = (struct uc_finding){ .rule = rule, .severity = rule->severity, .pid = pid };
}

void uc_finding_free(struct uc_finding *f)
{
	free(f->title);
	for (int i = 0; i < f->nbody; i++)
		free(f->body[i].text);
	free(f->body);
	free(f->stacks);
	free(f->fix);
	json_object_put(f->evidence);
	f->title = f->fix = NULL;
	f->body = NULL;
	f->stacks = NULL;
	f->evidence = NULL;
	f->nbody = f->nstacks = 0;
}

/* *@s += the formatted text. On allocation failure the text is lost,
 * never the finding. */
static void vappend(char **s, const char *fmt, va_list ap)
{
	size_t old = *s ? strlen(*s) : 0;
	char *add, *n;
	int len = vasprintf(&add, fmt, ap);

	if (len < 0)
		return;
	n = realloc(*s, old + len + 1);
	if (n) {
		memcpy(n + old, add, len + 1);
		*s = n;
	}
	free(add);
}

void uc_finding_headline(struct uc_finding *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->headline, sizeof(f->headline), fmt, ap);
	va_end(ap);
}

void uc_finding_title(struct uc_finding *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vappend(&f->title, fmt, ap);
	va_end(ap);
}

void uc_finding_fix(struct uc_finding *f, const char *fmt, ...)
{
	va_list ap;

	free(f->fix);
	f->fix = NULL;
	va_start(ap, fmt);
	vappend(&f->fix, fmt, ap);
	va_end(ap);
}

static struct uc_body_part *new_part(struct uc_finding *f, int stack)
{
	struct uc_body_part *n = realloc(f->body, (f->nbody + 1) * sizeof(*n));

	if (!n)
		return NULL;
	f->body = n;
	n[f->nbody] = (struct uc_body_part){ .stack = stack };
	return &n[f->nbody++];
}

void uc_finding_text(struct uc_finding *f, const char *fmt, ...)
{
	struct uc_body_part *p = f->nbody && f->body[f->nbody - 1].stack < 0 ?
				 &f->body[f->nbody - 1] : new_part(f, -1);
	va_list ap;

	if (!p)
		return;
	va_start(ap, fmt);
	vappend(&p->text, fmt, ap);
	va_end(ap);
}

int uc_finding_stack(struct uc_finding *f, const char *role, uint64_t id,
		     const char *no_stack)
{
	struct uc_stack_ref *n = realloc(f->stacks, (f->nstacks + 1) * sizeof(*n));

	if (!n)
		return -1;
	f->stacks = n;
	n[f->nstacks] = (struct uc_stack_ref){ .role = role, .id = id, .no_stack = no_stack };
	return f->nstacks++;
}

void uc_finding_show_stack(struct uc_finding *f, const char *title, int i)
{
	struct uc_body_part *p;

	if (i < 0 || !(p = new_part(f, i)))
		return;
	p->text = strdup(title);
}

void uc_finding_evidence(struct uc_finding *f, const char *name, json_object *v)
{
	if (!f->evidence)
		f->evidence = json_object_new_object();
	json_object_object_add(f->evidence, name, v);
}
