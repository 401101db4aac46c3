// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "pid_lines.h"

#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

struct pid_lines {
	FILE *out;
	char prefix[24];		/* "==PID==", from the last header */
	char *line;			/* the line being assembled */
	size_t len, cap;
	bool raw;			/* inside a suppression block */
};

/* "==123==..." -> length of "==123==", else 0. */
static size_t header_len(const char *s, size_t n)
{
	size_t i = 2;

	if (n < 5 || s[0] != '=' || s[1] != '=')
		return 0;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	if (i == 2 || i + 1 >= n || s[i] != '=' || s[i + 1] != '=')
		return 0;
	return i + 2;
}

static void emit(struct pid_lines *p)
{
	size_t h = header_len(p->line, p->len);

	if (h && h < sizeof(p->prefix)) {
		memcpy(p->prefix, p->line, h);
		p->prefix[h] = 0;
	}
	if (p->len == 2 && p->line[0] == '{')
		p->raw = true;
	if (!h && !p->raw && p->len > 1 && p->prefix[0])
		fputs(p->prefix, p->out);
	fwrite(p->line, 1, p->len, p->out);
	if (p->len == 2 && p->line[0] == '}')
		p->raw = false;
	p->len = 0;
}

static ssize_t pl_write(void *cookie, const char *buf, size_t size)
{
	struct pid_lines *p = cookie;

	for (size_t i = 0; i < size; i++) {
		if (p->len == p->cap) {
			size_t cap = p->cap ? 2 * p->cap : 256;
			char *l = realloc(p->line, cap);

			if (!l)
				return -1;
			p->line = l;
			p->cap = cap;
		}
		p->line[p->len++] = buf[i];
		if (buf[i] == '\n')
			emit(p);
	}
	fflush(p->out);
	return size;
}

static int pl_close(void *cookie)
{
	struct pid_lines *p = cookie;

	if (p->len)
		emit(p);
	fflush(p->out);
	free(p->line);
	free(p);
	return 0;
}

FILE *pid_lines_open(FILE *out, int pid)
{
	cookie_io_functions_t io = { .write = pl_write, .close = pl_close };
	struct pid_lines *p = calloc(1, sizeof(*p));
	FILE *f;

	if (!p)
		return out;
	p->out = out;
	if (pid > 0)
		snprintf(p->prefix, sizeof(p->prefix), "==%d==", pid);
	f = fopencookie(p, "w", io);
	if (!f) {
		free(p);
		return out;
	}
	/* Line buffered: a report is whole on the real stream at once. */
	setvbuf(f, NULL, _IOLBF, 0);
	return f;
}
